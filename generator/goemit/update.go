package goemit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// update emits the method of one field update: <Op><Field> for the single form, or
// <Op><Field>Many for the batch form.
func (b *board) update(op catalog.Op) {
	if op.Batch {
		b.updateMany(op)
	} else {
		b.updateOne(op)
	}
	b.f.Line()
}

// valueType is the type of an update's argument.
func valueType(fd *layout.Field, op layout.Op) jen.Code {
	if op == layout.OpAdd {
		return jen.Int64()
	}
	return goType(fd)
}

// updateDoc is the doc comment of a single field update.
func (b *board) updateDoc(name string, fd *layout.Field, op layout.Op) string {
	what := map[layout.Op]string{
		layout.OpAdd: fmt.Sprintf("adds delta to the %s of the entry of id", fd.Name),
		layout.OpMax: fmt.Sprintf("raises the %s of the entry of id to v when v is larger", fd.Name),
		layout.OpMin: fmt.Sprintf("lowers the %s of the entry of id to v when v is smaller", fd.Name),
		layout.OpSet: fmt.Sprintf("sets the %s of the entry of id to v", fd.Name),
	}[op]
	doc := fmt.Sprintf("%s %s and returns what it did (Written: the entry after and before).", name, what)
	if op == layout.OpAdd {
		if fd.Overflow == layout.OverflowSaturate {
			doc += fmt.Sprintf(" A result outside %s's range is clamped to its edge.", fd.Name)
		} else {
			doc += fmt.Sprintf(" A result outside %s's range is refused with an error matching ErrOverflow, leaving the entry unchanged.", fd.Name)
		}
	}
	zero := "the zero entry (see Update)"
	if op == layout.OpMax || op == layout.OpMin {
		// The first write of a best-of field is the value itself, never min or max against a zero.
		doc += fmt.Sprintf(" An id without an entry takes v as its %s (its first %s is the value submitted), the other fields starting from %s.", fd.Name, op, zero)
	} else {
		doc += " An id without an entry starts from " + zero + "."
	}
	var stamps []string
	for _, s := range b.l.Fields {
		if s.Stamp != layout.StampNone && s != fd {
			stamps = append(stamps, fmt.Sprintf("%s (%s clock)", s.Name, s.Stamp))
		}
	}
	if len(stamps) > 0 {
		doc += " When the update changes the entry, it also sets " + strings.Join(stamps, ", ") + " to now."
	}
	return doc
}

// updateArg is the name of an update's argument: delta for add, else v.
func updateArg(op layout.Op) string {
	if op == layout.OpAdd {
		return "delta"
	}
	return "v"
}

// updateOne emits <Op><Field>(ctx, id, v): the batch form's helper on a batch of one.
func (b *board) updateOne(op catalog.Op) {
	fd, u, name := op.Field, op.Update, op.Methods[0]
	arg := updateArg(u)
	b.comment("%s", wrap(b.updateDoc(name, fd, u)))
	one := jen.Index().Id("Update").Types(valueType(fd, u)).Values(jen.Values(jen.Id(b.l.IDName).Op(":").Id("id"), jen.Id("Value").Op(":").Id(arg)))
	call := jen.Id("decoding").Dot("First").Call(jen.Id("applyEach").Call(jen.Id("ctx"), jen.Id("b"), jen.Id(op.Function()), one, b.updateValue(fd, u)))
	recvDecl(b.f).Id(name).Params(ctxParam(), jen.Id("id").Add(b.idType()), jen.Id(arg).Add(valueType(fd, u))).Params(jen.Id("Written"), jen.Error()).Block(
		jen.Return(b.routedUpdate(op, call, false)),
	)
}

// updateMany emits <Op><Field>Many(ctx, updates).
func (b *board) updateMany(op catalog.Op) {
	fd, u, name := op.Field, op.Update, op.Methods[0]
	b.comment("%s applies %s to many updates in one script call (see Update).", name, strings.TrimSuffix(name, "Many"))
	call := jen.Id("applyEach").Call(jen.Id("ctx"), jen.Id("b"), jen.Id(op.Function()), jen.Id("updates"), b.updateValue(fd, u))
	recvDecl(b.f).Id(name).Params(ctxParam(), jen.Id("updates").Index().Id("Update").Types(valueType(fd, u))).Params(jen.Index().Id("Result"), jen.Error()).Block(
		jen.Return(b.routedUpdate(op, call, true)),
	)
}

// updateValue is the function applyEach turns an update's value into its script argument
// with: a delta as it is (or, for a member field too wide for exact doubles, as text); a new
// value as its digit, checked (digitOf<Field> itself where that is all it takes).
func (b *board) updateValue(fd *layout.Field, u layout.Op) jen.Code {
	arg := updateArg(u)
	v := func() *jen.Statement { return jen.Id(arg) }
	fn, fallible := b.digitCall(fd)
	switch {
	case u == layout.OpAdd && !wide(fd):
		return rt("AsIs").Types(jen.Int64())
	case u == layout.OpAdd:
		return jen.Func().Params(jen.Id(arg).Int64()).Params(jen.String(), jen.Error()).Block(
			jen.Return(rt("WideDelta").Call(v(), jen.Lit(fd.Hex)), jen.Nil()))
	case fn && fallible && !fd.Season && !wide(fd):
		return jen.Id(digitFunc(fd))
	}
	result := jen.Uint64()
	if wide(fd) {
		result = jen.String()
	}
	fail := func(err jen.Code) jen.Code { return jen.Return(jen.Lit(0), err) }
	if wide(fd) {
		fail = func(err jen.Code) jen.Code { return jen.Return(jen.Lit(""), err) }
	}
	body := b.seasonValueCheck(fd, v, fail)
	body = append(body, b.digitStmts(fd, "d", v, fail)...)
	body = append(body, jen.Return(b.digitArg(fd), jen.Nil()))
	return jen.Func().Params(jen.Id(arg).Add(goType(fd))).Params(result, jen.Error()).Block(body...)
}

// applyEach emits applyEach, the body of every field update method (rankgenrt.Decoding's
// ApplyEach over the package's Update).
func (b *board) applyEach() {
	u := jen.Id("updates").Index(jen.Id("i"))
	b.comment("applyEach runs the field update function f for updates, each value sent as arg(v) gives it; a value arg refuses (out of range) or an invalid id leaves the error in its update's Result, unsent.")
	b.f.Func().Id("applyEach").Types(jen.List(jen.Id("V"), jen.Id("A")).Any()).Params(
		ctxParam(), jen.Id("b").Op("*").Id("Board"), jen.Id("f").Op("*").Add(rt("Function")), jen.Id("updates").Index().Id("Update").Types(jen.Id("V")), jen.Id("arg").Func().Params(jen.Id("V")).Params(jen.Id("A"), jen.Error()),
	).Params(jen.Index().Id("Result"), jen.Error()).Block(
		jen.Return(jen.Id("decoding").Dot("ApplyEach").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id("f"), jen.Len(jen.Id("updates")),
			jen.Func().Params(jen.Id("i").Int()).Params(b.idType(), jen.Any(), jen.Error()).Block(
				jen.List(jen.Id("a"), jen.Err()).Op(":=").Id("arg").Call(jen.Add(u).Dot("Value")),
				jen.Return(jen.Add(u).Dot(b.l.IDName), jen.Id("a"), jen.Err()),
			))),
	)
	b.f.Line()
}

// digitArg is how the digit d of a field's new value goes to a script: the number, or for a
// member field too wide for exact doubles its fixed-width text.
func (b *board) digitArg(fd *layout.Field) jen.Code {
	if wide(fd) {
		return rt("DigitText").Call(jen.Id("d"), b.c.fc(fd, "End").Op("-").Add(b.c.fc(fd, "Off")), jen.Lit(fd.Hex))
	}
	return jen.Id("d")
}

// wide reports a member field whose digits reach 2^53, which the scripts handle as text.
func wide(fd *layout.Field) bool { return fd.Place == layout.InMember && fd.Span() >= 1<<53 }

func digitFunc(fd *layout.Field) string { return "digitOf" + fd.Name }

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
	doc := fmt.Sprintf("%s %s and returns what it did: the new entry, the one before (read in the same script) and whether it changed.", name, what)
	if op == layout.OpAdd {
		if fd.Overflow == layout.OverflowSaturate {
			doc += fmt.Sprintf(" A result outside %s's range is clamped to its edge.", fd.Name)
		} else {
			doc += fmt.Sprintf(" A result outside %s's range is refused with an error matching ErrOverflow, leaving the entry unchanged.", fd.Name)
		}
	}
	zero := "the zero entry (0, false, the first enum value, or the Unix epoch for a time; a field's lowest-ranking value when that is outside its range)"
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

// updateOne emits <Op><Field>(ctx, id, v).
func (b *board) updateOne(op catalog.Op) {
	fd, u, name := op.Field, op.Update, op.Methods[0]
	arg := updateArg(u)
	b.comment("%s", wrap(b.updateDoc(name, fd, u)))
	body := []jen.Code{b.checkID(jen.Id("id"), func(err jen.Code) jen.Code { return jen.Return(jen.Id("Written").Values(), err) })}
	var val jen.Code = jen.Id(arg)
	if u == layout.OpAdd && wide(fd) {
		val = rt("WideDelta").Call(jen.Id(arg), jen.Lit(fd.Hex))
	}
	if u != layout.OpAdd {
		fail := func(err jen.Code) jen.Code { return jen.Return(jen.Id("Written").Values(), err) }
		body = append(body, b.seasonValueCheck(fd, param, fail)...)
		body = append(body, b.digitStmts(fd, "d", param, fail)...)
		val = b.digitArg(fd)
	}
	body = append(body,
		jen.Var().Id("r").Index(jen.Lit(1)).Id("Result"),
		jen.If(jen.Err().Op(":=").Id("b").Dot("apply").Call(jen.Id("ctx"), jen.Id(op.Script()),
			jen.Append(jen.Id("b").Dot("updateArgs").Call(jen.Lit(1)), jen.Id("id"), val), jen.Id("r").Index(jen.Op(":")), jen.Index().Int().Values(jen.Lit(0))),
			jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("Written").Values(), jen.Err())),
		jen.Return(jen.Id("r").Index(jen.Lit(0)).Dot("Written"), jen.Id("r").Index(jen.Lit(0)).Dot("Err")),
	)
	recvDecl(b.f).Id(name).Params(ctxParam(), jen.Id("id").Add(b.idType()), jen.Id(arg).Add(valueType(fd, u))).Params(jen.Id("Written"), jen.Error()).Block(body...)
}

// updateMany emits <Op><Field>Many(ctx, updates).
func (b *board) updateMany(op catalog.Op) {
	fd, u, name, l := op.Field, op.Update, op.Methods[0], b.l
	b.comment("%s", wrap(fmt.Sprintf("%s applies many %s updates in one script call, atomic as a whole, in order (an id may appear more than once). Each update succeeds or fails on its own: its Result holds what it did (Written) or the error that left that entry unchanged. The error return is for failures of the whole call (connection, ErrLayoutMismatch), which change nothing.", name, strings.TrimSuffix(name, "Many"))))
	var val jen.Code = jen.Id("u").Dot("Value")
	if u == layout.OpAdd && wide(fd) {
		val = rt("WideDelta").Call(jen.Id("u").Dot("Value"), jen.Lit(fd.Hex))
	}
	loop := []jen.Code{
		b.checkIDThen(jen.Id("u").Dot(l.IDName), func(err jen.Code) []jen.Code {
			return []jen.Code{jen.Id("res").Index(jen.Id("i")).Dot("Err").Op("=").Add(err), jen.Continue()}
		}),
	}
	if u != layout.OpAdd {
		uv := func() *jen.Statement { return jen.Id("u").Dot("Value") }
		fail := func(err jen.Code) jen.Code {
			return jen.Id("res").Index(jen.Id("i")).Dot("Err").Op("=").Add(err).Line().Continue()
		}
		loop = append(loop, b.seasonValueCheck(fd, uv, fail)...)
		loop = append(loop, b.digitStmts(fd, "d", uv, fail)...)
		val = b.digitArg(fd)
	}
	loop = append(loop,
		jen.Id("args").Op("=").Append(jen.Id("args"), jen.Id("u").Dot(l.IDName), val),
		jen.Id("sent").Op("=").Append(jen.Id("sent"), jen.Id("i")),
	)
	recvDecl(b.f).Id(name).Params(ctxParam(), jen.Id("updates").Index().Id("Update").Types(valueType(fd, u))).Params(jen.Index().Id("Result"), jen.Error()).Block(
		jen.Id("res").Op(":=").Make(jen.Index().Id("Result"), jen.Len(jen.Id("updates"))),
		jen.Id("args").Op(":=").Id("b").Dot("updateArgs").Call(jen.Len(jen.Id("updates"))),
		jen.Id("sent").Op(":=").Make(jen.Index().Int(), jen.Lit(0), jen.Len(jen.Id("updates"))),
		jen.For(jen.List(jen.Id("i"), jen.Id("u")).Op(":=").Range().Id("updates")).Block(loop...),
		jen.If(jen.Err().Op(":=").Id("b").Dot("apply").Call(jen.Id("ctx"), jen.Id(op.Script()), jen.Id("args"), jen.Id("res"), jen.Id("sent")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("res"), jen.Nil()),
	)
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

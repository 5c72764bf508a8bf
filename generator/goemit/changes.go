package goemit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// changes emits the change lists: the Change type with its constructors (one per field update:
// AddPoints(3)), Changes, Board.Update, Board.UpdateMany and changeGroup, which lays a list out
// as the changes script's arguments.
func (b *board) changes(op catalog.Op) {
	ups := catalog.FieldUpdates(b.l)
	b.changeType(op, ups)
	for _, u := range ups {
		b.changeConstructor(u)
	}
	if b.l.HasData() {
		b.setDataChange()
	}
	b.changesType()
	b.updateOneList(op)
	b.updateLists(op)
	b.changeGroup()
}

// changeSlot is the constant of an update's place among an id's arguments: changeAddPoints.
func changeSlot(u catalog.FieldUpdate) string { return "change" + u.Method() }

// changeType emits Change and the constants of the changes script's arguments.
func (b *board) changeType(op catalog.Op, ups []catalog.FieldUpdate) {
	names := make([]string, len(ups))
	for i, u := range ups {
		names[i] = u.Method()
	}
	what := "one field update"
	if b.l.HasData() {
		names, what = append(names, dataChange), "one field update or the new data"
	}
	b.comment("Change is %s of a change list (Board.Update, Board.UpdateMany), made by %s. A zero Change is refused.", what, orList(names))
	fields := []jen.Code{
		jen.Id("field").String().Comment("the field it updates: a list changes each field at most once"),
		jen.Id("slot").Int().Comment("the place of its value among its id's arguments; 0 = a zero Change"),
		jen.Id("value").Any().Comment("the delta or the new digit, as the changes script takes it"),
		jen.Id("err").Error().Comment("a value outside the field's range, returned by Update"),
	}
	if b.l.HasData() {
		fields = append(fields, jen.Id("data").Id(layout.DataTypeName).Comment("SetData's data, which Update returns in Entry.Data"))
	}
	b.f.Type().Id("Change").Struct(fields...)
	b.f.Line()
	id, _ := op.Args.Index(catalog.ArgID)
	defs := []jen.Code{jen.Id("changeArgs").Op("=").Lit(op.Args.Stride()).Comment("arguments per id")}
	for _, u := range ups {
		at, _ := op.Args.Index(u.Name())
		defs = append(defs, jen.Id(changeSlot(u)).Op("=").Lit(at-id))
	}
	if at, err := op.Args.Index(catalog.ArgData); err == nil {
		defs = append(defs, jen.Id("changeData").Op("=").Lit(at-id))
	}
	order := "The changes script takes, per id, the id and then one argument per field update, in this order: a list fills in its changes and leaves the others \"\"."
	if b.l.HasData() {
		order += " Last comes the data: SetData's encoded Data, \"\" to leave the data as it is."
	}
	b.comment("%s", order)
	b.f.Const().Defs(defs...)
	b.f.Line()
}

// changeConstructor emits the constructor of one field update's Change: AddPoints(delta),
// MaxPoints(v), …
func (b *board) changeConstructor(u catalog.FieldUpdate) {
	fd, name := u.Field, u.Method()
	arg := updateArg(u.Update)
	b.comment("%s is the change of Board.Update that %s, as Board.%s does.", name, changeWhat(fd, u.Update, arg), name)
	change := func(val, err jen.Code) jen.Code {
		kv := []jen.Code{jen.Id("field").Op(":").Lit(fd.Name), jen.Id("slot").Op(":").Id(changeSlot(u))}
		if val != nil {
			kv = append(kv, jen.Id("value").Op(":").Add(val))
		}
		if err != nil {
			kv = append(kv, jen.Id("err").Op(":").Add(err))
		}
		return jen.Id("Change").Values(kv...)
	}
	var body []jen.Code
	var val, err jen.Code = jen.Id(arg), nil
	_, fallible := b.digitCall(fd)
	switch {
	case u.Update == layout.OpAdd && wide(fd):
		val = rt("WideDelta").Call(jen.Id(arg), jen.Lit(fd.Hex))
	case u.Update != layout.OpAdd && fallible && !wide(fd):
		// A value out of range stays in the Change: its list is refused before anything is sent.
		body = append(body, jen.List(jen.Id("d"), jen.Err()).Op(":=").Id(digitFunc(fd)).Call(jen.Id(arg)))
		val, err = jen.Id("d"), jen.Err()
	case u.Update != layout.OpAdd:
		body = b.digitStmts(fd, "d", param, func(err jen.Code) jen.Code { return jen.Return(change(nil, err)) })
		val = b.digitArg(fd)
	}
	body = append(body, jen.Return(change(val, err)))
	b.f.Func().Id(name).Params(jen.Id(arg).Add(valueType(fd, u.Update))).Id("Change").Block(body...)
	b.f.Line()
}

// changeWhat says what a change does: "adds delta to Points".
func changeWhat(fd *layout.Field, op layout.Op, arg string) string {
	return map[layout.Op]string{
		layout.OpAdd: fmt.Sprintf("adds %s to %s", arg, fd.Name),
		layout.OpMax: fmt.Sprintf("raises %s to %s when %s is larger", fd.Name, arg, arg),
		layout.OpMin: fmt.Sprintf("lowers %s to %s when %s is smaller", fd.Name, arg, arg),
		layout.OpSet: fmt.Sprintf("sets %s to %s", fd.Name, arg),
	}[op]
}

// changesType emits Changes, the change list of one id for UpdateMany.
func (b *board) changesType() {
	b.comment("Changes is the change list of one id, for UpdateMany.")
	b.f.Type().Id("Changes").Struct(
		jen.Id(b.l.IDName).Add(b.idType()),
		jen.Id("Apply").Index().Id("Change"),
	)
	b.f.Line()
}

// updateOneList emits Update(ctx, id, changes...).
func (b *board) updateOneList(op catalog.Op) {
	b.comment("%s", b.updateListDoc())
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("id").Add(b.idType()), jen.Id("changes").Op("...").Id("Change")).Params(jen.Id("Written"), jen.Error()).Block(
		jen.Return(jen.Id("first").Call(jen.Id("b").Dot(op.Methods[1]).Call(jen.Id("ctx"), jen.Index().Id("Changes").Values(jen.Values(
			jen.Id(b.l.IDName).Op(":").Id("id"), jen.Id("Apply").Op(":").Id("changes")))))),
	)
	b.f.Line()
}

// updateListDoc is Update's doc comment.
func (b *board) updateListDoc() string {
	doc := "Update applies changes to the entry of id in one script call and returns what it did (Written: the new entry, the one before, read in the same script, and whether it changed): all of them or, when one fails (a value out of range, an add that overflows), none, with an error naming the field. Each change works as its field's update method does: an id without an entry starts from the zero entry, and its first min or max takes the value given. Changes of distinct fields do not depend on their order; a list that changes a field twice, or holds a zero Change, is refused with an error matching rankgenrt.ErrBadChange before anything is sent. An empty list leaves an entry as it is (and stores the zero entry for an id without one)."
	var stamps []string
	for _, s := range b.l.Fields {
		if s.Stamp != layout.StampNone {
			stamps = append(stamps, fmt.Sprintf("%s (%s clock)", s.Name, s.Stamp))
		}
	}
	if len(stamps) > 0 {
		doc += " When the changes move the entry (or create it), " + strings.Join(stamps, ", ") + " is set to now, once, unless the list changes it."
	}
	if b.l.HasData() {
		doc += " A list may also hold SetData, which replaces the entry's data when the list applies; the returned Entry.Data is that data, or the zero Data for a list without SetData (which leaves the stored data as it is)."
	}
	return doc
}

// updateLists emits UpdateMany(ctx, lists).
func (b *board) updateLists(op catalog.Op) {
	doc := "UpdateMany applies many change lists in one script call, atomic as a whole, in order (an id may appear more than once: a later list starts from what an earlier one left). Each list is applied or refused on its own, as Update does: its Result holds what it did (Written) or the error that left that entry unchanged. The error return is for failures of the whole call (connection, ErrLayoutMismatch), which change nothing."
	if b.l.HasData() {
		doc += " Result.Entry.Data is the data the list set (SetData), else the zero Data: a list without SetData leaves the stored data as it is and does not read it (Get returns it)."
	}
	b.comment("%s", doc)
	recvDecl(b.f).Id(op.Methods[1]).Params(ctxParam(), jen.Id("lists").Index().Id("Changes")).Params(jen.Index().Id("Result"), jen.Error()).Block(
		b.itemsBatch(op, "lists", jen.Id("changeArgs").Op("*").Len(jen.Id("lists")), b.entryData(),
			jen.List(jen.Id("group"), jen.Err()).Op(":=").Id("changeGroup").Call(jen.Id("l").Dot(b.l.IDName), jen.Id("l").Dot("Apply")),
			errNil().Block(jen.Id("res").Index(jen.Id("i")).Dot("Err").Op("=").Err(), jen.Continue()),
			jen.Id("args").Op("=").Append(jen.Id("args"), jen.Id("group").Op("...")),
		)...,
	)
	b.f.Line()
}

// itemsBatch is the body of a batch method over items (the method's parameter, each one
// named by its loop: lists as l, ids as id) whose script replies an item per id it was sent
// (catalog.ReplyItems): args starts as a field update's, with room for size more; each item
// runs loop, which appends its arguments or sets its error in res[i] and continues; the script
// runs when any item was sent, and res[sent[j]] takes the j-th reply item (then more, which
// may set its Entry's data).
func (b *board) itemsBatch(op catalog.Op, items string, size, more jen.Code, loop ...jen.Code) []jen.Code {
	each := map[string]string{"lists": "l", "ids": "id"}[items]
	return []jen.Code{
		jen.Id("res").Op(":=").Make(jen.Index().Id("Result"), jen.Len(jen.Id(items))),
		jen.Id("args").Op(":=").Qual("slices", "Grow").Call(jen.Id("b").Dot("updateArgs").Call(jen.Lit(0)), size),
		jen.Id("sent").Op(":=").Make(jen.Index().Int(), jen.Lit(0), jen.Len(jen.Id(items))),
		jen.For(jen.List(jen.Id("i"), jen.Id(each)).Op(":=").Range().Id(items)).Block(
			append(loop, jen.Id("sent").Op("=").Append(jen.Id("sent"), jen.Id("i")))...),
		jen.If(jen.Len(jen.Id("sent")).Op("==").Lit(0)).Block(jen.Return(jen.Id("res"), jen.Nil())),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(run(op, jen.Id("args"))),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.List(jen.Id("items"), jen.Err()).Op(":=").Add(reader(op, jen.Id("v"), jen.Len(jen.Id("sent")))),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.For(jen.List(jen.Id("j"), jen.Id("it")).Op(":=").Range().Id("items")).Block(
			jen.Id("r").Op(":=").Op("&").Id("res").Index(jen.Id("sent").Index(jen.Id("j"))),
			jen.If(jen.Id("it").Dot("Err").Op("!=").Nil()).Block(jen.Id("r").Dot("Err").Op("=").Id("b").Dot("core").Dot("ItemErr").Call(jen.Id("it").Dot("Err")), jen.Continue()),
			jen.List(jen.Id("r").Dot("Written"), jen.Id("r").Dot("Err")).Op("=").Id("decoding").Dot("Updated").Call(jen.Id("it"), jen.Id("it").Dot("Member"), jen.Id("it").Dot("PriorMember")),
			more,
		),
		jen.Return(jen.Id("res"), jen.Nil()),
	}
}

// touch emits Touch(ctx, id) and TouchMany(ctx, ids): the touch script on ids.
func (b *board) touch(op catalog.Op) {
	var stamps []string
	for _, s := range catalog.Stamped(b.l) {
		stamps = append(stamps, fmt.Sprintf("%s (%s clock)", s.Name, s.Stamp))
	}
	b.comment("%s sets %s of the entry of id to now and leaves its other fields as they are, in one script call, and returns what it did (Written: the entry after, the one before, and Changed when a stamp moved). A play that scores nothing still counts as the latest: ties on the stamp see it. An id without an entry gets the zero entry, stamped, as a field update that creates it does. A clock outside a stamped field's range (or the board's season) is refused, leaving the entry as it was.", op.Methods[0], strings.Join(stamps, ", "))
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.Id("Written"), jen.Error()).Block(
		jen.Return(jen.Id("first").Call(jen.Id("b").Dot(op.Methods[1]).Call(jen.Id("ctx"), jen.Index().Add(b.idType()).Values(jen.Id("id"))))),
	)
	b.f.Line()
	b.comment("%s touches many ids in one script call, atomic as a whole, with one clock, as Touch does each: its Result per id holds what it did or the error that left that entry unchanged (an invalid id's, unsent). The error return is for failures of the whole call (connection, ErrLayoutMismatch), which change nothing.", op.Methods[1])
	recvDecl(b.f).Id(op.Methods[1]).Params(ctxParam(), jen.Id("ids").Index().Add(b.idType())).Params(jen.Index().Id("Result"), jen.Error()).Block(
		b.itemsBatch(op, "ids", jen.Len(jen.Id("ids")), jen.Null(),
			b.checkIDThen(jen.Id("id"), func(err jen.Code) []jen.Code {
				return []jen.Code{jen.Id("res").Index(jen.Id("i")).Dot("Err").Op("=").Add(err), jen.Continue()}
			}),
			jen.Id("args").Op("=").Append(jen.Id("args"), jen.Id("id")),
		)...,
	)
	b.f.Line()
}

// changeGroup emits changeGroup, which lays one id's change list out as the changes script's
// arguments, refusing an invalid id, a value out of range, a field changed twice and a zero
// Change.
func (b *board) changeGroup() {
	b.comment("changeGroup is the changes script's arguments for one id's change list: the id, then per field update its value, or \"\" when the list lacks it. An invalid id, a value out of range, a field changed twice or a zero Change is refused: nothing of the list is sent.")
	fail := func(err jen.Code) jen.Code { return jen.Return(jen.Nil(), err) }
	b.f.Func().Id("changeGroup").Params(jen.Id("id").Add(b.idType()), jen.Id("changes").Index().Id("Change")).Params(jen.Index().Any(), jen.Error()).Block(
		b.checkID(jen.Id("id"), fail),
		jen.Id("g").Op(":=").Make(jen.Index().Any(), jen.Id("changeArgs")),
		jen.Id("g").Index(jen.Lit(0)).Op("=").Id("id"),
		jen.For(jen.Id("k").Op(":=").Lit(1), jen.Id("k").Op("<").Id("changeArgs"), jen.Id("k").Op("++")).Block(
			jen.Id("g").Index(jen.Id("k")).Op("=").Lit("")),
		jen.For(jen.List(jen.Id("j"), jen.Id("c")).Op(":=").Range().Id("changes")).Block(
			jen.Switch().Block(
				jen.Case(jen.Id("c").Dot("err").Op("!=").Nil()).Block(fail(jen.Id("c").Dot("err"))),
				jen.Case(jen.Id("c").Dot("slot").Op("==").Lit(0)).Block(fail(rt("ZeroChangeError").Call())),
			),
			jen.For(jen.List(jen.Id("_"), jen.Id("prev")).Op(":=").Range().Id("changes").Index(jen.Empty(), jen.Id("j"))).Block(
				jen.If(jen.Id("prev").Dot("field").Op("==").Id("c").Dot("field")).Block(fail(rt("FieldTwiceError").Call(jen.Id("c").Dot("field")))),
			),
			jen.Id("g").Index(jen.Id("c").Dot("slot")).Op("=").Id("c").Dot("value"),
		),
		jen.Return(jen.Id("g"), jen.Nil()),
	)
	b.f.Line()
}

// orList joins names as "A, B or C".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

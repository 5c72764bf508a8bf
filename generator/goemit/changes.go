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
	b.comment("Change is %s of a change list (Board.Update), made by %s, …; a zero Change is refused.", what, names[0])
	b.f.Type().Id("Change").Op("=").Add(rt("Change")).Types(jen.Id("Entry"))
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
	b.comment("%s is the change that %s (Board.%s, in Board.Update).", name, changeWhat(fd, u.Update, arg), name)
	change := func(val, err jen.Code) jen.Code {
		if val == nil {
			val = jen.Nil()
		}
		if err == nil {
			err = jen.Nil()
		}
		return rt("NewChange").Types(jen.Id("Entry")).Call(jen.Lit(fd.Name), jen.Id(changeSlot(u)), val, err)
	}
	var body []jen.Code
	var val, err jen.Code = jen.Id(arg), nil
	_, fallible := b.digitCall(fd)
	switch {
	case u.Update == layout.OpAdd && wide(fd):
		val = rt("WideDelta").Call(jen.Id(arg), jen.Lit(fd.Hex))
	case u.Update != layout.OpAdd && fallible && !wide(fd):
		// A value out of range stays in the Change: its list is refused before anything is sent.
		b.f.Func().Id(name).Params(jen.Id(arg).Add(valueType(fd, u.Update))).Id("Change").Block(
			jen.Return(b.previousChange(u, rt("ChangeTo").Types(jen.Id("Entry")).Call(jen.Lit(fd.Name), jen.Id(changeSlot(u)), jen.Id(digitFunc(fd)), jen.Id(arg)))))
		b.f.Line()
		return
	case u.Update != layout.OpAdd:
		body = b.digitStmts(fd, "d", param, func(err jen.Code) jen.Code { return jen.Return(change(nil, err)) })
		val = b.digitArg(fd)
	}
	body = append(body, jen.Return(b.previousChange(u, change(val, err).(*jen.Statement))))
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
	call := jen.Id("decoding").Dot("Update").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("changeArgs"), jen.Id("id"), jen.Id("changes"))
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("id").Add(b.idType()), jen.Id("changes").Op("...").Id("Change")).Params(jen.Id("Written"), jen.Error()).Block(
		jen.Return(b.routedList(call, false)),
	)
	b.f.Line()
}

// updateListDoc is Update's doc comment.
func (b *board) updateListDoc() string {
	doc := "Update applies changes to the entry of id in one script call and returns what it did (Written): all of them or, when one fails (a value out of range, an add that overflows), none, with an error naming the field. Each change works as its field's update method does: an id without an entry starts from the zero entry, and its first min or max takes the value given. Changes of distinct fields do not depend on their order; a list that changes a field twice, or holds a zero Change, is refused with an error matching rankgenrt.ErrBadChange before anything is sent. An empty list leaves an entry as it is (and stores the zero entry for an id without one)."
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
	l := jen.Id("lists").Index(jen.Id("i"))
	call := jen.Id("decoding").Dot("UpdateMany").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("changeArgs"), jen.Len(jen.Id("lists")),
		jen.Func().Params(jen.Id("i").Int()).Params(b.idType(), jen.Index().Id("Change")).Block(
			jen.Return(jen.Add(l).Dot(b.l.IDName), jen.Add(l).Dot("Apply")),
		))
	recvDecl(b.f).Id(op.Methods[1]).Params(ctxParam(), jen.Id("lists").Index().Id("Changes")).Params(jen.Index().Id("Result"), jen.Error()).Block(
		jen.Return(b.routedList(call, true)),
	)
	b.f.Line()
}

// touch emits Touch(ctx, id) and TouchMany(ctx, ids): the touch script on ids.
func (b *board) touch(op catalog.Op) {
	var stamps []string
	for _, s := range catalog.Stamped(b.l) {
		stamps = append(stamps, fmt.Sprintf("%s (%s clock)", s.Name, s.Stamp))
	}
	b.comment("%s sets %s of the entry of id to now and leaves its other fields as they are, in one script call, and returns what it did (Written: the entry after, the one before, and Changed when a stamp moved). A play that scores nothing still counts as the latest: ties on the stamp see it. An id without an entry gets the zero entry, stamped, as a field update that creates it does. A clock outside a stamped field's range (or the board's season) is refused, leaving the entry as it was.", op.Methods[0], strings.Join(stamps, ", "))
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.Id("Written"), jen.Error()).Block(
		jen.Return(b.routedTouch(op.Methods[0], jen.Id("decoding").Dot("Touch").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("id")), jen.Id("id"), false)),
	)
	b.f.Line()
	b.comment("%s touches many ids in one script call, atomic as a whole, with one clock, as Touch does each: its Result per id holds what it did or the error that left that entry unchanged (an invalid id's, unsent). The error return is for failures of the whole call (connection, ErrLayoutMismatch), which change nothing.", op.Methods[1])
	recvDecl(b.f).Id(op.Methods[1]).Params(ctxParam(), jen.Id("ids").Index().Add(b.idType())).Params(jen.Index().Id("Result"), jen.Error()).Block(
		jen.Return(b.routedTouch(op.Methods[1], jen.Id("decoding").Dot("TouchMany").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("ids")), jen.Id("ids"), true)),
	)
	b.f.Line()
}

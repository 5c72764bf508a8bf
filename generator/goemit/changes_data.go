package goemit

import (
	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/layout"
)

// dataChange is the change constructor that replaces an entry's data in a change list.
const dataChange = layout.DataChangeName

// setDataChange emits SetData(d), the change that replaces an entry's data, and listData,
// which finds it in a list.
func (b *board) setDataChange() {
	data := layout.DataTypeName
	change := func(kv ...jen.Code) jen.Code {
		return jen.Id("Change").Values(append([]jen.Code{jen.Id("field").Op(":").Lit(data), jen.Id("slot").Op(":").Id("changeData")}, kv...)...)
	}
	b.comment("%s is the change of Board.Update that replaces the entry's data with d. It is stored only when the whole list applies, and then even when no field moves (an id without an entry gets the zero entry with d); data that %s.Encode refuses is an error before anything is sent. A list without %s leaves the data as it is.", dataChange, data, dataChange)
	b.f.Func().Id(dataChange).Params(jen.Id("d").Id(data)).Id("Change").Block(
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Id("d").Dot("Encode").Call(),
		errNil().Block(jen.Return(change(jen.Id("err").Op(":").Err()))),
		jen.Return(change(jen.Id("value").Op(":").Id("s"), jen.Id("data").Op(":").Id("d"))),
	)
	b.f.Line()
	b.comment("listData is the data a change list sets, or the zero %s when it has no %s.", data, dataChange)
	b.f.Func().Id("listData").Params(jen.Id("changes").Index().Id("Change")).Id(data).Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Id("changes")).Block(
			jen.If(jen.Id("c").Dot("slot").Op("==").Id("changeData")).Block(jen.Return(jen.Id("c").Dot("data"))),
		),
		jen.Return(jen.Id(data).Values()),
	)
	b.f.Line()
}

// entryData sets, on a layout with data fields, the Entry of a list's Result to the data the
// list set: the script returns no data.
func (b *board) entryData() jen.Code {
	if !b.l.HasData() {
		return jen.Null()
	}
	return jen.If(jen.Id("r").Dot("Err").Op("==").Nil()).Block(
		jen.Id("r").Dot("Entry").Dot(layout.DataTypeName).Op("=").Id("listData").Call(jen.Id("lists").Index(jen.Id("sent").Index(jen.Id("j"))).Dot("Apply")))
}

package goemit

import (
	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/layout"
)

// dataChange is the change constructor that replaces an entry's data in a change list.
const dataChange = layout.DataChangeName

// setDataChange emits SetData(d), the change that replaces an entry's data, which the list's
// result entry takes too (the changes function returns no data).
func (b *board) setDataChange() {
	data := layout.DataTypeName
	b.comment("%s is the change of Board.Update that replaces the entry's data with d. It is stored only when the whole list applies, and then even when no field moves (an id without an entry gets the zero entry with d); data that %s.Encode refuses is an error before anything is sent. A list without %s leaves the data as it is.", dataChange, data, dataChange)
	b.f.Func().Id(dataChange).Params(jen.Id("d").Id(data)).Id("Change").Block(
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Id("d").Dot("Encode").Call(),
		errNil().Block(jen.Return(rt("NewChange").Types(jen.Id("Entry")).Call(jen.Lit(data), jen.Id("changeData"), jen.Nil(), jen.Err()))),
		jen.Return(b.previousDataChange(rt("NewEntryChange").Types(jen.Id("Entry")).Call(jen.Lit(data), jen.Id("changeData"), jen.Id("s"),
			jen.Func().Params(jen.Id("e").Op("*").Id("Entry")).Block(jen.Id("e").Dot(data).Op("=").Id("d"))))),
	)
	b.f.Line()
}

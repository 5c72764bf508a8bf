package goemit

import (
	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
)

// On a periodic layout with a season-anchored field, the set and best scripts take the board's
// season (catalog.EntriesTakeSeason) and refuse an entry whose offset lies past its end, the
// guard of every write that does not pass through the Board's own check (seasonCheck).

// entryArgs declares args, the start of the arguments of op (set or best) with room for n
// more: the write arguments, then on a layout whose entries take the season its bounds.
func (b *board) entryArgs(op catalog.Op, n jen.Code) *jen.Statement {
	if !catalog.EntriesTakeSeason(b.l) {
		return jen.Id("args").Op(":=").Id("b").Dot("core").Dot("WriteArgs").Call(n)
	}
	extra := op.Args.Fixed() - len(catalog.WriteArgs())
	return jen.Id("args").Op(":=").Append(jen.Id("b").Dot("core").Dot("WriteArgs").Call(jen.Lit(extra).Op("+").Add(n)), jen.Id("b").Dot("from"), jen.Id("b").Dot("until")).
		Comment("the season's bounds: the script refuses an entry past its end")
}

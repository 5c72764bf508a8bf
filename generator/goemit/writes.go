package goemit

import (
	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
)

// entryArgsFunc is decoding's EntryArgs: what the set and best functions take of an entry,
// after the season's check of its season-anchored fields.
func (b *board) entryArgsFunc() jen.Code {
	if !b.l.HasData() && len(catalog.SeasonFields(b.l)) == 0 {
		return rt("EncodedArgs").Call(jen.Id("Entry").Dot("Encode"))
	}
	return jen.Func().Params(jen.Id("season").Op("*").Add(rt("Season")), jen.Id("e").Id("Entry"), jen.Id("args").Index().Any()).Params(jen.Index().Any(), jen.Error()).Block(
		b.seasonCheck(jen.Id("season"), jen.Id("e"), jen.Nil()),
		jen.List(jen.Id("score"), jen.Id("member"), jen.Err()).Op(":=").Id("e").Dot("Encode").Call(),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		b.encodeData(jen.Nil()),
		jen.Return(jen.Append(append([]jen.Code{jen.Id("args"), rt("FormatScore").Call(jen.Id("score")), jen.Id("member")}, b.dataArg()...)...), jen.Nil()),
	)
}

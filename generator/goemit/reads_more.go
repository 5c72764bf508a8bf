package goemit

import (
	"math"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
)

// idsArgs checks every id of ids and returns them as a script's arguments, or returns ret...,
// err for the first invalid one: nothing is sent.
func (b *board) idsArgs(ret ...jen.Code) []jen.Code {
	return []jen.Code{
		jen.Id("args").Op(":=").Make(jen.Index().Any(), jen.Len(jen.Id("ids"))),
		jen.For(jen.List(jen.Id("i"), jen.Id("id")).Op(":=").Range().Id("ids")).Block(
			b.checkIDReturn(ret...),
			jen.Id("args").Index(jen.Id("i")).Op("=").Id("id"),
		),
	}
}

// getMany emits GetMany: the entries of many ids in one script call.
func (b *board) getMany(op catalog.Op) {
	b.comment(`GetMany returns, in one round trip, a Result per id in the order given: the entry, or an Err
matching ErrNotFound when the id has none. An invalid id fails the whole call before anything
is sent.`)
	body := []jen.Code{jen.If(jen.Len(jen.Id("ids")).Op("==").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil()))}
	body = append(body, b.idsArgs(jen.Nil())...)
	body = append(body,
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(b.runRO(op, jen.Id("args").Op("..."))),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.List(jen.Id("ps"), jen.Id("found"), jen.Err()).Op(":=").Add(reader(op, jen.Id("v"), jen.Len(jen.Id("ids")))),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("out").Op(":=").Make(jen.Index().Id("Result"), jen.Len(jen.Id("ids"))),
		jen.For(jen.List(jen.Id("i"), jen.Id("p")).Op(":=").Range().Id("ps")).Block(
			jen.If(jen.Op("!").Id("found").Index(jen.Id("i"))).Block(
				jen.Id("out").Index(jen.Id("i")).Dot("Err").Op("=").Add(rt("NotFound")).Call(b.idText(jen.Id("ids").Index(jen.Id("i")))),
				jen.Continue(),
			),
			jen.If(jen.List(jen.Id("out").Index(jen.Id("i")).Dot("Entry"), jen.Err()).Op("=").Id("Decode").Call(jen.Id("p").Dot("Score"), jen.Id("p").Dot("Member")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err())),
			b.decodeData(jen.Id("out").Index(jen.Id("i")).Dot("Entry"), jen.Id("p"), jen.Nil()),
		),
		jen.Return(jen.Id("out"), jen.Nil()),
	)
	recvDecl(b.f).Id("GetMany").Params(ctxParam(), jen.Id("ids").Op("...").Add(b.idType())).Params(jen.Index().Id("Result"), jen.Error()).Block(body...)
	b.f.Line()
}

// rankMany emits RankMany: the ranks of many ids in one script call.
func (b *board) rankMany(op catalog.Op) {
	b.comment(`RankMany returns, in one round trip, the 1-based rank of each id in the order given, 0 for
an id without an entry. An invalid id fails the whole call before anything is sent.`)
	body := []jen.Code{jen.If(jen.Len(jen.Id("ids")).Op("==").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil()))}
	body = append(body, b.idsArgs(jen.Nil())...)
	body = append(body,
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(b.runRO(op, jen.Id("args").Op("..."))),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.List(jen.Id("rs"), jen.Err()).Op(":=").Add(reader(op, jen.Id("v"), jen.Len(jen.Id("ids")))),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.For(jen.Id("i").Op(":=").Range().Id("rs")).Block(
			jen.Id("rs").Index(jen.Id("i")).Op("++").Comment("0-based to 1-based; a missing id's -1 becomes 0"),
		),
		jen.Return(jen.Id("rs"), jen.Nil()),
	)
	recvDecl(b.f).Id("RankMany").Params(ctxParam(), jen.Id("ids").Op("...").Add(b.idType())).Params(jen.Index().Int64(), jen.Error()).Block(body...)
	b.f.Line()
}

// bottom emits Bottom and PageFromEnd: pages counted from the end, one script call.
func (b *board) bottom(op catalog.Op) {
	f := b.f
	f.Comment("Bottom returns the last n entries, best first (the board's last entry last).")
	recvDecl(f).Id("Bottom").Params(ctxParam(), jen.Id("n").Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(
		jen.Return(jen.Id("b").Dot("PageFromEnd").Call(jen.Id("ctx"), jen.Lit(0), jen.Id("n"))))
	f.Line()
	b.comment(`PageFromEnd returns up to limit entries that end offset entries before the end of the board,
best first, with their ranks: PageFromEnd(0, 10) is the last ten, PageFromEnd(10, 10) the ten
before them. The board's size is read in the same script, so the page is exact. A negative
offset is an error matching ErrOutOfRange.`)
	recvDecl(f).Id("PageFromEnd").Params(ctxParam(), jen.List(jen.Id("offset"), jen.Id("limit")).Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(b.offsetPage(op)...)
	f.Line()
}

// standing emits Percentile and PageOf, and the helper that reads an entry's position and the
// board's size in one script call.
func (b *board) standing(op catalog.Op) {
	f := b.f
	b.comment(`Percentile returns the share of the board's entries that rank behind the entry of id, in
percent: 0 for the last entry, 100·(n−1)/n for the first of n; or an error matching
ErrNotFound. Its position and the board's size are read together, in one script call.`)
	recvDecl(f).Id("Percentile").Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.Float64(), jen.Error()).Block(
		jen.List(jen.Id("pos"), jen.Id("count"), jen.Err()).Op(":=").Id("b").Dot("standing").Call(jen.Id("ctx"), jen.Id("id")),
		errNil().Block(jen.Return(jen.Lit(0), jen.Err())),
		jen.Return(jen.Lit(100).Op("*").Float64().Call(jen.Id("count").Op("-").Lit(1).Op("-").Id("pos")).Op("/").Float64().Call(jen.Id("count")), jen.Nil()),
	)
	f.Line()
	b.comment(`PageOf returns the 1-based page of pageSize entries that holds the entry of id (Page(ctx,
(page-1)*pageSize, pageSize) returns it), or an error matching ErrNotFound; a pageSize below 1
is an error matching ErrOutOfRange.`)
	recvDecl(f).Id("PageOf").Params(ctxParam(), jen.Id("id").Add(b.idType()), jen.Id("pageSize").Int64()).Params(jen.Int64(), jen.Error()).Block(
		jen.If(jen.Id("pageSize").Op("<").Lit(1)).Block(jen.Return(jen.Lit(0), rt("IntRangeError").Call(jen.Lit("pageSize"), jen.Id("pageSize"), jen.Lit(1), jen.Lit(int64(math.MaxInt64))))),
		jen.List(jen.Id("pos"), jen.Id("_"), jen.Err()).Op(":=").Id("b").Dot("standing").Call(jen.Id("ctx"), jen.Id("id")),
		errNil().Block(jen.Return(jen.Lit(0), jen.Err())),
		jen.Return(jen.Id("pos").Op("/").Id("pageSize").Op("+").Lit(1), jen.Nil()),
	)
	f.Line()
	f.Comment("standing reads the 0-based position of the entry of id and the number of entries.")
	recvDecl(f).Id("standing").Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.List(jen.Id("pos"), jen.Id("count")).Int64(), jen.Err().Error()).Block(
		b.checkIDReturn(jen.Lit(0), jen.Lit(0)),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(b.runRO(op, jen.Id("id"))),
		b.notFound(jen.Lit(0), jen.Lit(0)),
		jen.Return(reader(op, jen.Id("v"), jen.Err())),
	)
	f.Line()
}

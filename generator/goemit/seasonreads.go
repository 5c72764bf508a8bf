package goemit

import (
	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
)

// seasonReads declares what a periodic layout reads across seasons: Seasons.Recent (the
// current season and those before it) and Seasons.History (an id's entry and rank on each of
// several seasons' boards, in one pipeline), with its SeasonResult.
func (b *board) seasonReads() {
	b.recent()
	b.history(catalog.OpOf(catalog.Ops(b.l), catalog.Around))
}

// recent emits Seasons.Recent.
func (b *board) recent() {
	f := b.f
	b.comment("Recent returns the current season and the n-1 before it, newest first: Recent(keepSeasons+1) lists every season whose board may still exist.")
	seasonsRecv(f).Id("Recent").Params(jen.Id("n").Int()).Index().Id("Season").Block(
		jen.If(jen.Id("n").Op("<=").Lit(0)).Block(jen.Return(jen.Nil())),
		jen.Id("out").Op(":=").Make(jen.Index().Id("Season"), jen.Lit(1), jen.Id("n")),
		jen.Id("out").Index(jen.Lit(0)).Op("=").Id("ss").Dot("Current").Call(),
		jen.For(jen.Len(jen.Id("out")).Op("<").Id("n")).Block(
			jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("calendar").Dot("Prev").Call(jen.Id("out").Index(jen.Len(jen.Id("out")).Op("-").Lit(1))))),
		jen.Return(jen.Id("out")),
	)
	f.Line()
}

// history emits SeasonResult and Seasons.History, which runs op (the around script, with no
// entry before or after) on each season's board in one pipeline.
func (b *board) history(op catalog.Op) {
	f := b.f
	b.comment("SeasonResult is an id's standing on one season's board: its entry with its 1-based rank, or an Err matching ErrNotFound when the id has no entry that season, or rankgenrt.ErrSeasonExpired when the season's board has expired (the Seasons' clock, as a Board's reads).")
	f.Type().Id("SeasonResult").Struct(
		jen.Id("Season").Id("Season"),
		jen.Id("Ranked"),
		jen.Id("Err").Error(),
	)
	f.Line()
	b.comment("History returns the entry and rank of id on the board of each season given, in that order (Recent(5) for this season and the 4 before it). The reads go in one pipeline: one round trip on a single server, one per node in parallel on a Cluster (a base with a hash tag keeps every season on one node). Each season's read is exact on its own; an error other than a missing entry fails the call.")
	seasonsRecv(f).Id("History").Params(ctxParam(), jen.Id("id").Add(b.idType()), jen.Id("seasons").Op("...").Id("Season")).Params(jen.Index().Id("SeasonResult"), jen.Error()).Block(
		b.checkIDReturn(jen.Nil()),
		jen.Id("pipe").Op(":=").Add(rt("NewPipe")).Call(jen.Id("ss").Dot("c")),
		jen.Id("cmds").Op(":=").Make(jen.Index().Op("*").Add(rd("Cmd")), jen.Len(jen.Id("seasons"))),
		jen.Id("out").Op(":=").Make(jen.Index().Id("SeasonResult"), jen.Len(jen.Id("seasons"))),
		jen.Id("now").Op(":=").Id("ss").Dot("now").Call(),
		jen.For(jen.List(jen.Id("i"), jen.Id("s")).Op(":=").Range().Id("seasons")).Block(
			jen.Id("out").Index(jen.Id("i")).Dot("Season").Op("=").Id("s"),
			jen.Id("out").Index(jen.Id("i")).Dot("Err").Op("=").Add(rt("CheckExpiry")).Call(jen.Id("s"), rt("ExpireAt").Call(jen.Id("expiryOf").Call(jen.Id("s"))), jen.Id("now")),
			jen.If(jen.Id("out").Index(jen.Id("i")).Dot("Err").Op("==").Nil()).Block(
				jen.Id("cmds").Index(jen.Id("i")).Op("=").Id("pipe").Dot("CallRO").Call(jen.Id("ctx"), jen.Id(op.Function()),
					jen.Id("boardSpec").Dot("Keys").Call(rt("SeasonKey").Call(jen.Id("ss").Dot("base"), jen.Id("s"))), jen.Id("id"), jen.Lit(0), jen.Lit(0), jen.Lit("0"))),
		),
		jen.Id("pipe").Dot("Exec").Call(jen.Id("ctx")),
		jen.For(jen.List(jen.Id("i"), jen.Id("cmd")).Op(":=").Range().Id("cmds")).Block(
			jen.If(jen.Id("cmd").Op("==").Nil()).Block(jen.Continue().Comment("the season expired")),
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("cmd").Dot("Result").Call(),
			jen.If(jen.Qual("errors", "Is").Call(jen.Err(), rd("Nil"))).Block(
				jen.Id("out").Index(jen.Id("i")).Dot("Err").Op("=").Add(rt("NotFound").Call(b.idText(jen.Id("id")))),
				jen.Continue()),
			errNil().Block(jen.Return(jen.Nil(), jen.Err())),
			jen.List(jen.Id("start"), jen.Id("ps"), jen.Err()).Op(":=").Add(reader(op, jen.Id("v"))),
			errNil().Block(jen.Return(jen.Nil(), jen.Err())),
			jen.List(jen.Id("rs"), jen.Err()).Op(":=").Id("decoding").Dot("RankedAt").Call(jen.Id("start"), jen.Id("ps")),
			errNil().Block(jen.Return(jen.Nil(), jen.Err())),
			jen.If(jen.Len(jen.Id("rs")).Op("==").Lit(0)).Block(
				jen.Id("out").Index(jen.Id("i")).Dot("Err").Op("=").Add(rt("NotFound").Call(b.idText(jen.Id("id")))),
				jen.Continue().Comment("the script answers nil for a missing id; an empty window is read the same")),
			jen.Id("out").Index(jen.Id("i")).Dot("Ranked").Op("=").Id("rs").Index(jen.Lit(0)),
		),
		jen.Return(jen.Id("out"), jen.Nil()),
	)
	f.Line()
}

package goemit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// readCall sends the command make(c), of type typ, with the board's fingerprint check
// (rankgenrt.Read).
func readCall(typ string, make func(c jen.Code) jen.Code) *jen.Statement {
	return rt("Read").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Func().Params(jen.Id("c").Add(rd("Cmdable"))).Op("*").Add(rd(typ)).Block(
		jen.Return(make(jen.Id("c"))),
	))
}

// notFound returns ret..., ErrNotFound for id when err is redis.Nil.
func (b *board) notFound(ret ...jen.Code) jen.Code {
	return jen.If(jen.Qual("errors", "Is").Call(jen.Err(), rd("Nil"))).Block(jen.Return(append(ret, rt("NotFound").Call(b.idText(jen.Id("id"))))...))
}

// checkIDReturn checks id and returns ret..., err when it is invalid.
func (b *board) checkIDReturn(ret ...jen.Code) jen.Code {
	return b.checkID(jen.Id("id"), func(err jen.Code) jen.Code { return jen.Return(append(ret, err)...) })
}

// board0 is the sorted set's key, b.keys[0].
func board0() jen.Code { return jen.Id("b").Dot("core").Dot("Key").Call() }

// get emits Get: the script through the index, or ZSCORE of the bare id.
func (b *board) get(op catalog.Op) {
	zero := jen.Id("Entry").Values()
	b.f.Comment("Get returns the entry of id, or an error matching ErrNotFound.")
	body := []jen.Code{b.checkIDReturn(zero)}
	if b.l.HasData() {
		body = append(body, b.getData(op)...)
	} else if op.Scripted() {
		body = append(body,
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(b.runRO(op, jen.Id("id"))),
			b.notFound(zero),
			errNil().Block(jen.Return(zero, jen.Err())),
			jen.List(jen.Id("score"), jen.Id("member"), jen.Err()).Op(":=").Add(reader(op, jen.Id("v"))),
			errNil().Block(jen.Return(zero, jen.Err())),
			jen.Return(jen.Id("Decode").Call(jen.Id("score"), jen.Id("member"))),
		)
	} else {
		body = []jen.Code{jen.Return(jen.Id("decoding").Dot("Get").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id("id")))} // ZSCORE of the bare id
	}
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.Id("Entry"), jen.Error()).Block(body...)
	b.f.Line()
}

// rank emits Rank: the script through the index, or ZREVRANK of the bare id.
func (b *board) rank(op catalog.Op) {
	b.comment("Rank returns the 1-based position of the entry of id in the board's order, or an error matching ErrNotFound.")
	body := []jen.Code{jen.Return(jen.Id("decoding").Dot("Rank").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id("id")))} // ZREVRANK of the bare id
	if op.Scripted() {
		body = []jen.Code{
			b.checkIDReturn(jen.Lit(0)),
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(b.runRO(op, jen.Id("id"))),
			b.notFound(jen.Lit(0)),
			jen.List(jen.Id("r"), jen.Err()).Op(":=").Add(reader(op, jen.Id("v"), jen.Err())),
			errNil().Block(jen.Return(jen.Lit(0), jen.Err())),
			jen.Return(jen.Id("r").Op("+").Lit(1), jen.Nil()),
		}
	}
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.Int64(), jen.Error()).Block(body...)
	b.f.Line()
}

// page emits Top and Page: one ZREVRANGE.
func (b *board) page(op catalog.Op) {
	f := b.f
	f.Comment("Top returns the first n entries, best first.")
	recvDecl(f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("n").Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(
		jen.Return(jen.Id("b").Dot(op.Methods[1]).Call(jen.Id("ctx"), jen.Lit(0), jen.Id("n"))))
	f.Line()
	b.comment(`Page returns limit entries from the 0-based position offset, best first: none for a limit
of 0 or less, an error matching ErrOutOfRange for a negative offset.`)
	if b.l.HasData() {
		recvDecl(f).Id(op.Methods[1]).Params(ctxParam(), jen.List(jen.Id("offset"), jen.Id("limit")).Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(b.offsetPage(op)...) // the page script reads the entries and their data together
		f.Line()
		return
	}
	recvDecl(f).Id(op.Methods[1]).Params(ctxParam(), jen.List(jen.Id("offset"), jen.Id("limit")).Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(
		jen.Return(jen.Id("decoding").Dot("Page").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id("offset"), jen.Id("limit"))))
	f.Line()
}

// around emits Around and AroundFilled, which share one script: its fill argument says which.
func (b *board) around(op catalog.Op) {
	call := func(fill bool) jen.Code {
		return jen.Return(jen.Id("decoding").Dot("Around").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("id"), jen.Id("before"), jen.Id("after"), jen.Lit(fill)))
	}
	b.comment("Around returns the entry of id with up to before entries ahead of it and after entries behind it, or an error matching ErrNotFound.")
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("id").Add(b.idType()), jen.List(jen.Id("before"), jen.Id("after")).Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(call(false))
	b.f.Line()
	b.comment(`AroundFilled is Around with the window kept whole at the ends of the board: what the top
cuts from before is taken after, and what the end cuts from after is taken before, so the
first entry still sees before + after others when the board has them. The entry of id is in
the window; or an error matching ErrNotFound.`)
	recvDecl(b.f).Id(op.Methods[1]).Params(ctxParam(), jen.Id("id").Add(b.idType()), jen.List(jen.Id("before"), jen.Id("after")).Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(call(true))
	b.f.Line()
}

// after emits After.
func (b *board) after(op catalog.Op) {
	b.comment(`After returns up to limit entries that rank after the cursor, best first, and the cursor of
the last one (the same cursor when there are none). Paging by cursor is stable while scores
change: an entry is never returned twice nor skipped because others moved ahead of it. A
cursor whose score is NaN marks no place: it is refused (ErrBadScore) before anything is sent.`)
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("cur").Id("Cursor"), jen.Id("limit").Int64()).Params(jen.Index().Id("Ranked"), jen.Id("Cursor"), jen.Error()).Block(
		jen.Return(jen.Id("decoding").Dot("After").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("cur"), jen.Id("limit"))))
	b.f.Line()
}

// count emits Count: one ZCARD.
func (b *board) count(op catalog.Op) {
	b.f.Comment("Count returns the number of entries.")
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam()).Params(jen.Int64(), jen.Error()).Block(jen.Return(jen.Id("b").Dot("core").Dot("Count").Call(jen.Id("ctx"))))
	b.f.Line()
}

// refuseNegativeOffset is the first check of every read at an offset: a negative offset is
// no position, an error matching ErrOutOfRange as PageOf's pageSize below 1 is. (A limit of 0
// or less asks for nothing: an empty page.)
func refuseNegativeOffset() jen.Code {
	return jen.If(jen.Id("offset").Op("<").Lit(0)).Block(jen.Return(jen.Nil(),
		rt("IntRangeError").Call(jen.Lit("offset"), jen.Id("offset"), jen.Lit(0), jen.Qual("math", "MaxInt64"))))
}

// rangeLead emits Range<Lead>: one ZRANGE BYSCORE over the band of the leading field.
func (b *board) rangeLead(op catalog.Op) {
	lead := b.l.Fields[0]
	b.comment("%s", wrap(fmt.Sprintf("%s returns, best first, the entries whose %s lies in [lo, hi], skipping offset of them and returning at most limit. It is one ZRANGE BYSCORE: %s leads the score, so the range is a band of scores. Bounds outside %s's range, and a negative offset, are an error matching ErrOutOfRange.", op.Methods[0], lead.Name, lead.Name, lead.Name)))
	fail := func(err jen.Code) jen.Code { return jen.Return(jen.Nil(), err) }
	body := b.digitStmts(lead, "dlo", func() *jen.Statement { return jen.Id("lo") }, fail)
	body = append(body, b.digitStmts(lead, "dhi", func() *jen.Statement { return jen.Id("hi") }, fail)...)
	body = append(body, refuseNegativeOffset())
	// Digits order like values for desc fields, against them for asc ones.
	if lead.Order == layout.Desc {
		body = append(body, jen.If(jen.Id("dlo").Op(">").Id("dhi").Op("||").Id("limit").Op("<=").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil())))
	} else {
		body = append(body,
			jen.If(jen.Id("dlo").Op("<").Id("dhi").Op("||").Id("limit").Op("<=").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil())),
			jen.List(jen.Id("dlo"), jen.Id("dhi")).Op("=").List(jen.Id("dhi"), jen.Id("dlo")))
	}
	if b.l.HasData() {
		body = append(body, b.rangeData(op, lead)...)
	} else {
		body = append(body, b.rangeQuery(lead)...)
	}
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.List(jen.Id("lo"), jen.Id("hi")).Add(goType(lead)), jen.List(jen.Id("offset"), jen.Id("limit")).Int64()).Params(jen.Index().Id("Entry"), jen.Error()).Block(body...)
	b.f.Line()
}

// countRange emits Count<Lead>Between: one ZCOUNT over the band of the leading field.
func (b *board) countRange(op catalog.Op) {
	lead := b.l.Fields[0]
	b.comment("%s", wrap(fmt.Sprintf("%s returns the number of entries whose %s lies in [lo, hi], with one ZCOUNT in O(log n): %s leads the score, so the range is a band of scores. Bounds outside %s's range are an error matching ErrOutOfRange.", op.Methods[0], lead.Name, lead.Name, lead.Name)))
	fail := func(err jen.Code) jen.Code { return jen.Return(jen.Lit(0), err) }
	body := b.digitStmts(lead, "dlo", func() *jen.Statement { return jen.Id("lo") }, fail)
	body = append(body, b.digitStmts(lead, "dhi", func() *jen.Statement { return jen.Id("hi") }, fail)...)
	if lead.Order == layout.Desc {
		body = append(body, jen.If(jen.Id("dlo").Op(">").Id("dhi")).Block(jen.Return(jen.Lit(0), jen.Nil())))
	} else {
		body = append(body,
			jen.If(jen.Id("dlo").Op("<").Id("dhi")).Block(jen.Return(jen.Lit(0), jen.Nil())),
			jen.List(jen.Id("dlo"), jen.Id("dhi")).Op("=").List(jen.Id("dhi"), jen.Id("dlo")))
	}
	body = append(body,
		jen.Return(readCall("IntCmd", func(c jen.Code) jen.Code {
			return jen.Add(c).Dot("ZCount").Call(jen.Id("ctx"), board0(),
				rt("FormatScore").Call(jen.Id("scoreOfP").Call(jen.Id("dlo").Op("*").Add(b.c.fc(lead, "Weight")))),
				jen.Lit("(").Op("+").Add(rt("FormatScore")).Call(jen.Id("scoreOfP").Call(jen.Parens(jen.Id("dhi").Op("+").Lit(1)).Op("*").Add(b.c.fc(lead, "Weight")))))
		})))
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.List(jen.Id("lo"), jen.Id("hi")).Add(goType(lead))).Params(jen.Int64(), jen.Error()).Block(body...)
	b.f.Line()
}

// rangeQuery reads and decodes the band of scores of the leading field's digits dlo…dhi.
func (b *board) rangeQuery(lead *layout.Field) []jen.Code {
	weight := b.c.bases[lead] + "Weight"
	return []jen.Code{
		jen.Comment(fmt.Sprintf("%s's digits dlo…dhi are the scores of P in [dlo·W, (dhi+1)·W), W = %s.", lead.Name, weight)),
		jen.List(jen.Id("zs"), jen.Err()).Op(":=").Add(readCall("ZSliceCmd", func(c jen.Code) jen.Code {
			return jen.Add(c).Dot("ZRangeArgsWithScores").Call(jen.Id("ctx"), rd("ZRangeArgs").Values(jen.Dict{
				jen.Id("Key"):     board0(),
				jen.Id("Start"):   jen.Lit("(").Op("+").Add(rt("FormatScore")).Call(jen.Id("scoreOfP").Call(jen.Parens(jen.Id("dhi").Op("+").Lit(1)).Op("*").Add(b.c.fc(lead, "Weight")))),
				jen.Id("Stop"):    rt("FormatScore").Call(jen.Id("scoreOfP").Call(jen.Id("dlo").Op("*").Add(b.c.fc(lead, "Weight")))),
				jen.Id("ByScore"): jen.True(),
				jen.Id("Rev"):     jen.True(),
				jen.Id("Offset"):  jen.Id("offset"),
				jen.Id("Count"):   jen.Id("limit"),
			}))
		})),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("out").Op(":=").Make(jen.Index().Id("Entry"), jen.Len(jen.Id("zs"))),
		jen.For(jen.List(jen.Id("i"), jen.Id("p")).Op(":=").Range().Add(rt("ZPairs")).Call(jen.Id("zs"))).Block(
			jen.If(jen.List(jen.Id("out").Index(jen.Id("i")), jen.Err()).Op("=").Id("Decode").Call(jen.Id("p").Dot("Score"), jen.Id("p").Dot("Member")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		),
		jen.Return(jen.Id("out"), jen.Nil()),
	}
}

// competition emits CompetitionRank and CompetitionRankTuple, which share one script: the
// number of leading score fields that count for ties says which.
func (b *board) competition(op catalog.Op) {
	lead := b.l.Fields[0]
	b.comment("%s", wrap(fmt.Sprintf("CompetitionRank returns 1 + the number of entries with a better %s than the entry of id (\"1224\" ranking: equal %s share a rank), counted with ZCOUNT in O(log n), or an error matching ErrNotFound.", lead.Name, lead.Name)))
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.Int64(), jen.Error()).Block(
		jen.Return(jen.Id("b").Dot("competition").Call(jen.Id("ctx"), jen.Id("id"), jen.Lit(1))))
	b.f.Line()
	var names []string
	for _, f := range b.l.Fields[:b.l.NumScore] {
		names = append(names, f.Name)
	}
	tied := "entries equal on every field share a rank"
	if b.l.NumScore < len(b.l.Fields) {
		tied = "the fields in the member do not count: entries equal on the score fields share a rank"
	}
	b.comment("%s", wrap(fmt.Sprintf("CompetitionRankTuple is CompetitionRank on the whole score (%s): 1 + the number of entries whose score fields rank before the entry of id; %s. Or an error matching ErrNotFound.", strings.Join(names, ", "), tied)))
	recvDecl(b.f).Id(op.Methods[1]).Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.Int64(), jen.Error()).Block(
		jen.Return(jen.Id("b").Dot("competition").Call(jen.Id("ctx"), jen.Id("id"), b.c.konst("scoreFields"))))
	b.f.Line()
	b.f.Comment("competition runs the competition script: entries tie when equal on the first tied score fields.")
	recvDecl(b.f).Id("competition").Params(ctxParam(), jen.Id("id").Add(b.idType()), jen.Id("tied").Int()).Params(jen.Int64(), jen.Error()).Block(
		b.checkIDReturn(jen.Lit(0)),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(b.runRO(op, jen.Id("id"), jen.Id("tied"))),
		b.notFound(jen.Lit(0)),
		jen.Return(reader(op, jen.Id("v"), jen.Err())),
	)
	b.f.Line()
}

// dense emits DenseRank.
func (b *board) dense(op catalog.Op) {
	lead := b.l.Fields[0]
	b.comment("%s", wrap(fmt.Sprintf("DenseRank returns 1 + the number of distinct %s values ahead of the entry of id (\"1223\" ranking: equal %s share a rank and the next value takes the next rank), or an error matching ErrNotFound. The script steps once per distinct value ahead, O(log n) each.", lead.Name, lead.Name)))
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.Int64(), jen.Error()).Block(
		b.checkIDReturn(jen.Lit(0)),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(b.runRO(op, jen.Id("id"))),
		b.notFound(jen.Lit(0)),
		jen.Return(reader(op, jen.Id("v"), jen.Err())),
	)
	b.f.Line()
}

// getMany emits GetMany: the entries of many ids in one script call.
func (b *board) getMany(op catalog.Op) {
	b.comment(`GetMany returns, in one round trip, a Result per id in the order given: the entry, or an Err
matching ErrNotFound when the id has none. An invalid id fails the whole call before anything
is sent.`)
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("ids").Op("...").Add(b.idType())).Params(jen.Index().Id("Result"), jen.Error()).Block(
		jen.Return(jen.Id("decoding").Dot("GetMany").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("ids"))))
	b.f.Line()
}

// rankMany emits RankMany: the ranks of many ids in one script call.
func (b *board) rankMany(op catalog.Op) {
	b.comment(`RankMany returns, in one round trip, the 1-based rank of each id in the order given, 0 for
an id without an entry. An invalid id fails the whole call before anything is sent.`)
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("ids").Op("...").Add(b.idType())).Params(jen.Index().Int64(), jen.Error()).Block(
		jen.Return(jen.Id("decoding").Dot("RankMany").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("ids"))))
	b.f.Line()
}

// bottom emits Bottom and PageFromEnd: pages counted from the end, one script call.
func (b *board) bottom(op catalog.Op) {
	f := b.f
	f.Comment("Bottom returns the last n entries, best first (the board's last entry last).")
	recvDecl(f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("n").Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(
		jen.Return(jen.Id("b").Dot(op.Methods[1]).Call(jen.Id("ctx"), jen.Lit(0), jen.Id("n"))))
	f.Line()
	b.comment(`PageFromEnd returns up to limit entries that end offset entries before the end of the board,
best first, with their ranks: PageFromEnd(0, 10) is the last ten, PageFromEnd(10, 10) the ten
before them. The board's size is read in the same script, so the page is exact. A negative
offset is an error matching ErrOutOfRange.`)
	recvDecl(f).Id(op.Methods[1]).Params(ctxParam(), jen.List(jen.Id("offset"), jen.Id("limit")).Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(b.offsetPage(op)...)
	f.Line()
}

// standing emits Percentile and PageOf, each one script call that reads an entry's position
// and the board's size together.
func (b *board) standing(op catalog.Op) {
	f := b.f
	call := func(method string, args ...jen.Code) jen.Code {
		return jen.Return(jen.Id("decoding").Dot(method).Call(append([]jen.Code{jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("id")}, args...)...))
	}
	b.comment(`Percentile returns the share of the board's entries that rank behind the entry of id, in
percent: 0 for the last entry, 100·(n−1)/n for the first of n; or an error matching
ErrNotFound. Its position and the board's size are read together, in one script call.`)
	recvDecl(f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.Float64(), jen.Error()).Block(call("Percentile"))
	f.Line()
	b.comment(`PageOf returns the 1-based page of pageSize entries that holds the entry of id (Page(ctx,
(page-1)*pageSize, pageSize) returns it), or an error matching ErrNotFound; a pageSize below 1
is an error matching ErrOutOfRange.`)
	recvDecl(f).Id(op.Methods[1]).Params(ctxParam(), jen.Id("id").Add(b.idType()), jen.Id("pageSize").Int64()).Params(jen.Int64(), jen.Error()).Block(call("PageOf", jen.Id("pageSize")))
	f.Line()
}

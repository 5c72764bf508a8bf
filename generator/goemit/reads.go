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

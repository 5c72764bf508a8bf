package goemit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// rangeLead emits Range<Lead>: one ZRANGE BYSCORE over the band of the leading field.
func (b *board) rangeLead(op catalog.Op) {
	lead := b.l.Fields[0]
	b.comment("%s", wrap(fmt.Sprintf("%s returns, best first, the entries whose %s lies in [lo, hi], skipping offset of them and returning at most limit. It is one ZRANGE BYSCORE: %s leads the score, so the range is a band of scores. Bounds outside %s's range, and a negative offset, are an error matching ErrOutOfRange.", op.Methods[0], lead.Name, lead.Name, lead.Name)))
	fail := func(err jen.Code) jen.Code { return jen.Return(jen.Nil(), err) }
	body := b.digitStmts(lead, "dlo", func() *jen.Statement { return jen.Id("lo") }, fail)
	body = append(body, b.digitStmts(lead, "dhi", func() *jen.Statement { return jen.Id("hi") }, fail)...)
	fn := jen.Code(jen.Nil()) // one ZRANGE BYSCORE, but where entries carry data
	if b.l.HasData() {
		fn = jen.Id(op.Function())
	}
	body = append(body, jen.Return(jen.Id("decoding").Dot("LeadRange").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), fn, jen.Id("dlo"), jen.Id("dhi"),
		b.c.fc(lead, "Weight"), jen.Lit(lead.Order != layout.Desc), jen.Id("offset"), jen.Id("limit"))))
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
	body = append(body, jen.Return(jen.Id("decoding").Dot("CountLead").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id("dlo"), jen.Id("dhi"),
		b.c.fc(lead, "Weight"), jen.Lit(lead.Order != layout.Desc))))
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.List(jen.Id("lo"), jen.Id("hi")).Add(goType(lead))).Params(jen.Int64(), jen.Error()).Block(body...)
	b.f.Line()
}

// competition emits CompetitionRank and CompetitionRankTuple, which share one script: the
// number of leading score fields that count for ties says which.
func (b *board) competition(op catalog.Op) {
	lead := b.l.Fields[0]
	b.comment("%s", wrap(fmt.Sprintf("CompetitionRank returns 1 + the number of entries with a better %s than the entry of id (\"1224\" ranking: equal %s share a rank), counted with ZCOUNT in O(log n), or an error matching ErrNotFound.", lead.Name, lead.Name)))
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.Int64(), jen.Error()).Block(
		jen.Return(jen.Id("decoding").Dot("Position").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("id"), jen.Lit(1))))
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
		jen.Return(jen.Id("decoding").Dot("Position").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("id"), b.c.konst("scoreFields"))))
	b.f.Line()
}

// dense emits DenseRank.
func (b *board) dense(op catalog.Op) {
	lead := b.l.Fields[0]
	b.comment("%s", wrap(fmt.Sprintf("DenseRank returns 1 + the number of distinct %s values ahead of the entry of id (\"1223\" ranking: equal %s share a rank and the next value takes the next rank), or an error matching ErrNotFound. The script steps once per distinct value ahead, O(log n) each.", lead.Name, lead.Name)))
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.Int64(), jen.Error()).Block(
		jen.Return(jen.Id("decoding").Dot("Position").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("id"))),
	)
	b.f.Line()
}

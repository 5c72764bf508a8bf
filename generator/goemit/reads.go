package goemit

import (
	"fmt"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
)

// rangeLead emits Range<Lead>: one ZRANGE BYSCORE over the band of the leading field.
func (b *board) rangeLead(op catalog.Op) {
	lead := b.l.Fields[0]
	b.comment("%s", wrap(fmt.Sprintf("%s returns, best first, the entries whose %s lies in [lo, hi], skipping offset of them and returning at most limit. It is one ZRANGE BYSCORE: %s leads the score, so the range is a band of scores. Bounds outside %s's range, and a negative offset, are an error matching ErrOutOfRange.", op.Methods[0], lead.Name, lead.Name, lead.Name)))
	fn := jen.Code(jen.Nil()) // one ZRANGE BYSCORE, but where entries carry data
	if b.l.HasData() {
		fn = jen.Id(op.Function())
	}
	call := jen.Id("decoding").Dot("LeadRange").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), fn,
		jen.Id(lead.Name+"Between").Call(jen.Id("lo"), jen.Id("hi")), jen.Id("offset"), jen.Id("limit"))
	body := []jen.Code{jen.Return(b.routedLead(op, call, true))}
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.List(jen.Id("lo"), jen.Id("hi")).Add(goType(lead)), jen.List(jen.Id("offset"), jen.Id("limit")).Int64()).Params(jen.Index().Id("Entry"), jen.Error()).Block(body...)
	b.f.Line()
}

// countRange emits Count<Lead>Between: one ZCOUNT over the band of the leading field.
func (b *board) countRange(op catalog.Op) {
	lead := b.l.Fields[0]
	b.comment("%s", wrap(fmt.Sprintf("%s returns the number of entries whose %s lies in [lo, hi], with one ZCOUNT in O(log n): %s leads the score, so the range is a band of scores. Bounds outside %s's range are an error matching ErrOutOfRange.", op.Methods[0], lead.Name, lead.Name, lead.Name)))
	call := jen.Id("decoding").Dot("CountBetween").Call(jen.Id("ctx"), jen.Id("b").Dot("core"),
		jen.Id(lead.Name+"Between").Call(jen.Id("lo"), jen.Id("hi")))
	body := []jen.Code{jen.Return(b.routedLead(op, call, false))}
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.List(jen.Id("lo"), jen.Id("hi")).Add(goType(lead))).Params(jen.Int64(), jen.Error()).Block(body...)
	b.f.Line()
}

package goemit

import (
	"github.com/dave/jennifer/jen"

	"github.com/rankgen/rankgen/generator/layout"
)

// reindex emits Board.Reindex for layouts whose members carry a prefix: it builds the id →
// member index from the members already in the sorted set (adopting a board that other code,
// such as seed 000's hand-made scheme, wrote with the same layout), through rankgenrt.Reindex
// with the generated Decode. emitBoard calls it after the operations of the catalogue: it
// runs no script of its own.
func (b *board) reindex() {
	l, f := b.l, b.f
	if !l.HasPrefix() {
		return
	}
	b.comment("Reindex builds the board's index (id → member) from the members already in its sorted set: how a board that other code wrote with this layout is adopted. It reads the whole set first and writes nothing when a member does not decode (ErrBadScore, ErrBadMember) or an id has more than one member (ErrDuplicateID; the report lists them). It is idempotent and safe to rerun: it corrects wrong entries, removes entries of ids no longer in the set, and writes each entry only while its member is still in the set, so it never undoes a concurrent write of this Board. Members written meanwhile by other code are not indexed: stop such writers first.")
	id := jen.Id("e").Dot(l.IDName)
	if l.IDType == layout.IDUint64 {
		id = jen.Qual("strconv", "FormatUint").Call(id, jen.Lit(10))
	}
	recvDecl(f).Id("Reindex").Params(ctxParam()).Params(rt("ReindexReport"), jen.Error()).Block(
		jen.Return(rt("Reindex").Call(
			jen.Id("ctx"), jen.Id("b").Dot("core").Dot("Client").Call(), jen.Id("b").Dot("core").Dot("Key").Call(), jen.Id("Fingerprint"),
			jen.Func().Params(jen.Id("score").Float64(), jen.Id("member").String()).Params(jen.String(), jen.Error()).Block(
				jen.List(jen.Id("e"), jen.Err()).Op(":=").Id("Decode").Call(jen.Id("score"), jen.Id("member")),
				jen.Return(id, jen.Err()),
			),
		)),
	)
	f.Line()
}

package goemit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// The band API: a Band is a band of a leading prefix of the score fields (equal on some, then
// between two values on the next), which is a band of scores [lo, hi) of P; a <Field>Prefix
// fixes the score fields up to that field and is a Place for AroundScore, as an Entry is.
// Constructors check values as Encode does and carry the first error to the read that takes
// the band or place, so a chain reads as one expression.

// bandTypes emits Band, the score prefix they are built from, Place, and for each score field
// its Prefix type with the constructors that lead to it.
func (b *board) bandTypes() {
	b.comment(`Band is a band of the board's order: the entries whose leading score fields equal given values
and whose next score field lies between two values, built by %[1]sBetween(lo, hi) or %[1]sIs(v)…
and read by Between and CountBetween (a value out of range: ErrOutOfRange). The zero Band is empty.`, b.l.Fields[0].Name)
	b.f.Type().Id("Band").Op("=").Add(rt("Band")).Types(jen.Id("Entry"))
	b.f.Line()
	b.comment("Place is where a score prefix (a <Field>Prefix) or an Entry would rank, for AroundScore.")
	b.f.Type().Id("Place").Interface(jen.Id("place").Params().Params(jen.Float64(), jen.String(), jen.Error()))
	b.f.Line()
	b.f.Comment("place is the entry's own score and member.")
	b.f.Func().Params(jen.Id("e").Id("Entry")).Id("place").Params().Params(jen.Float64(), jen.String(), jen.Error()).Block(
		jen.Return(jen.Id("e").Dot("Encode").Call()))
	b.f.Line()
	for i, fd := range b.l.Fields[:b.l.NumScore] {
		b.prefixType(i, fd)
		b.bandBetween(i, fd)
		b.bandIs(i, fd)
	}
}

// prefixName is the Prefix type that fixes the score fields up to fd.
func prefixName(fd *layout.Field) string { return fd.Name + "Prefix" }

// prefixType emits <Field>Prefix.
func (b *board) prefixType(i int, fd *layout.Field) {
	var names []string
	for _, g := range b.l.Fields[:i+1] {
		names = append(names, g.Name)
	}
	given := strings.Join(names, ", ") + " are given values"
	if i == 0 {
		given = fd.Name + " is a given value"
	}
	b.comment("%s is the entries whose %s: a Place for AroundScore%s.", prefixName(fd), given, b.narrowDoc(i))
	b.f.Type().Id(prefixName(fd)).Struct(jen.Id("s").Add(rt("ScorePrefix")))
	b.f.Line()
	b.f.Comment("place is the place before every entry of the prefix: the lowest score of the entries ahead of it.")
	b.f.Func().Params(jen.Id("p").Id(prefixName(fd))).Id("place").Params().Params(jen.Float64(), jen.String(), jen.Error()).Block(
		jen.Return(jen.Id("p").Dot("s").Dot("Place").Call(b.scoreOfPFunc())))
	b.f.Line()
}

// narrowDoc says how a Prefix type that fixes the first i+1 score fields narrows to a Band.
func (b *board) narrowDoc(i int) string {
	if i+1 >= b.l.NumScore {
		return ""
	}
	next := b.l.Fields[i+1].Name
	return fmt.Sprintf(", narrowed to a Band by %sBetween or to the next Prefix by %sIs", next, next)
}

// bandCtor declares a band constructor of score field i: a function for the leading field,
// else a method of the previous field's Prefix; from is the prefix it starts from.
func (b *board) bandCtor(i int, name string) (decl *jen.Statement, from jen.Code) {
	if i == 0 {
		return b.f.Func().Id(name), rt("ScorePrefix").Values()
	}
	prev := b.l.Fields[i-1]
	return b.f.Func().Params(jen.Id("p").Id(prefixName(prev))).Id(name), jen.Id("p").Dot("s")
}

// bandBetween emits <Field>Between(lo, hi) Band.
func (b *board) bandBetween(i int, fd *layout.Field) {
	name := fd.Name + "Between"
	fixed := ""
	if i > 0 {
		fixed = " among the entries of the prefix"
	}
	b.comment("%s is the band of entries whose %s lies in [lo, hi]%s (empty when lo > hi).", name, fd.Name, fixed)
	decl, from := b.bandCtor(i, name)
	decl.Params(jen.List(jen.Id("lo"), jen.Id("hi")).Add(goType(fd))).Id("Band").Block(
		jen.Return(rt("BandBetween").Types(jen.Id("Entry")).Call(from, jen.Id(digitFunc(fd)), jen.Id("lo"), jen.Id("hi"),
			b.c.fc(fd, "Weight"), jen.Lit(fd.Order == layout.Asc))))
	b.f.Line()
}

// bandIs emits <Field>Is(v) <Field>Prefix.
func (b *board) bandIs(i int, fd *layout.Field) {
	name, typ := fd.Name+"Is", prefixName(fd)
	b.comment("%s fixes %s to v.", name, fd.Name)
	decl, from := b.bandCtor(i, name)
	decl.Params(jen.Id("v").Add(goType(fd))).Id(typ).Block(
		jen.Return(jen.Id(typ).Values(rt("FixValue").Call(from, jen.Id(digitFunc(fd)), jen.Id("v"), b.c.fc(fd, "Weight")))))
	b.f.Line()
}

// aroundScore emits AroundScore: the entries around a Place, in one script call.
func (b *board) aroundScore(op catalog.Op) {
	lead := b.l.Fields[0].Name
	b.comment(`AroundScore returns, best first with their ranks, up to before entries that rank ahead of
the place and up to after entries from it on: AroundScore(ctx, %[1]sIs(v), 5, 5) is the five
entries just better than every entry whose %[1]s is v, then the first five of them (or of the
entries after, when none has v). A whole Entry is a place too: the entries around where it
would rank, itself included when it is on the board. A place built from a value out of range
is an error matching ErrOutOfRange, as is a nil place.`, lead)
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("at").Id("Place"), jen.List(jen.Id("before"), jen.Id("after")).Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(
		jen.If(jen.Id("at").Op("==").Nil()).Block(jen.Return(jen.Nil(), rt("NilPlaceError").Call(jen.Lit(lead+"Prefix")))),
		jen.Return(jen.Id("decoding").Dot("AroundPlace").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("at").Dot("place"), jen.Id("before"), jen.Id("after"))),
	)
	b.f.Line()
}

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
and whose next score field lies between two values. Build one with %[1]sBetween(lo, hi), or
%[1]sIs(v)… to fix fields first; read it with Between and CountBetween. The zero Band is empty.
A value outside its field's range makes the read that takes the band fail with ErrOutOfRange.`, b.l.Fields[0].Name)
	b.f.Type().Id("Band").Op("=").Add(rt("Band")).Types(jen.Id("Entry"))
	b.f.Line()
	b.comment("Place is where a score prefix (a <Field>Prefix) or a whole Entry would rank: AroundScore reads the entries around it.")
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
		jen.Return(jen.Id("p").Dot("s").Dot("Place").Call(jen.Id("scoreOfP"))))
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

// constructor declares a band constructor of score field i: a function for the leading field,
// else a method of the previous field's Prefix; from is the prefix it starts from.
func (b *board) bandCtor(i int, name string) (decl *jen.Statement, from jen.Code) {
	if i == 0 {
		return b.f.Func().Id(name), rt("ScorePrefix").Values()
	}
	prev := b.l.Fields[i-1]
	return b.f.Func().Params(jen.Id("p").Id(prefixName(prev))).Id(name), jen.Id("p").Dot("s")
}

// earlierErr returns ret when the prefix the constructor starts from already holds an error.
func earlierErr(i int, ret func(err jen.Code) jen.Code) jen.Code {
	if i == 0 {
		return jen.Null()
	}
	return jen.If(jen.Err().Op(":=").Id("p").Dot("s").Dot("Err").Call(), jen.Err().Op("!=").Nil()).Block(ret(jen.Err()))
}

// bandBetween emits <Field>Between(lo, hi) Band.
func (b *board) bandBetween(i int, fd *layout.Field) {
	name := fd.Name + "Between"
	fixed := ""
	if i > 0 {
		fixed = " among the entries of the prefix"
	}
	b.comment("%s is the band of entries whose %s lies in [lo, hi]%s (empty when lo > hi).", name, fd.Name, fixed)
	fail := func(err jen.Code) jen.Code { return jen.Return(rt("BandErr").Types(jen.Id("Entry")).Call(err)) }
	decl, from := b.bandCtor(i, name)
	body := []jen.Code{earlierErr(i, fail)}
	body = append(body, b.digitStmts(fd, "dlo", func() *jen.Statement { return jen.Id("lo") }, fail)...)
	body = append(body, b.digitStmts(fd, "dhi", func() *jen.Statement { return jen.Id("hi") }, fail)...)
	lo, hi := jen.Id("dlo"), jen.Id("dhi")
	if fd.Order == layout.Asc {
		lo, hi = jen.Id("dhi"), jen.Id("dlo") // the digits of an asc field order against its values
	}
	body = append(body, jen.Return(rt("BandOf").Types(jen.Id("Entry")).Call(from, lo, hi, b.c.fc(fd, "Weight"))))
	decl.Params(jen.List(jen.Id("lo"), jen.Id("hi")).Add(goType(fd))).Id("Band").Block(body...)
	b.f.Line()
}

// bandIs emits <Field>Is(v) <Field>Prefix.
func (b *board) bandIs(i int, fd *layout.Field) {
	name, typ := fd.Name+"Is", prefixName(fd)
	b.comment("%s fixes %s to v.", name, fd.Name)
	fail := func(err jen.Code) jen.Code {
		return jen.Return(jen.Id(typ).Values(rt("PrefixErr").Call(err)))
	}
	decl, from := b.bandCtor(i, name)
	body := []jen.Code{earlierErr(i, fail)}
	body = append(body, b.digitStmts(fd, "d", param, fail)...)
	body = append(body, jen.Return(jen.Id(typ).Values(jen.Add(from).Dot("Fix").Call(jen.Id("d"), b.c.fc(fd, "Weight")))))
	decl.Params(jen.Id("v").Add(goType(fd))).Id(typ).Block(body...)
	b.f.Line()
}

// band emits Between: the band's page, with ranks, in one script call.
func (b *board) band(op catalog.Op) {
	b.bandTypes()
	b.comment(`Between returns, best first with their ranks, up to limit entries of the band, skipping
offset of them: Between(ctx, %[1]sBetween(lo, hi), 0, 10) is the best ten whose %[1]s lies in
[lo, hi]. The band is a band of scores: one script counts the entries ahead of it (ZCOUNT) and
reads the page (ZRANGE … BYSCORE REV LIMIT), O(log n + offset + limit). A band built from a
value out of range is an error matching ErrOutOfRange, as is a negative offset.`, b.l.Fields[0].Name)
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("band").Id("Band"), jen.List(jen.Id("offset"), jen.Id("limit")).Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(
		jen.Return(jen.Id("decoding").Dot("Between").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("band"), jen.Id("offset"), jen.Id("limit"))),
	)
	b.f.Line()
}

// countBand emits CountBetween: one ZCOUNT of the band's scores.
func (b *board) countBand(op catalog.Op) {
	b.comment("CountBetween returns the number of entries in the band, with one ZCOUNT in O(log n). A band built from a value out of range is an error matching ErrOutOfRange.")
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("band").Id("Band")).Params(jen.Int64(), jen.Error()).Block(
		jen.Return(jen.Id("decoding").Dot("CountBetween").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id("band"))),
	)
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
		jen.List(jen.Id("score"), jen.Id("member"), jen.Err()).Op(":=").Id("at").Dot("place").Call(),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(windowRead(b.runRO(op, rt("FormatScore").Call(jen.Id("score")), jen.Id("member"), jen.Max(jen.Id("before"), jen.Lit(0)), jen.Max(jen.Id("after"), jen.Lit(0))))),
	)
	b.f.Line()
}

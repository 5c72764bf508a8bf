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
	b.f.Type().Id("Band").Struct(
		jen.List(jen.Id("lo"), jen.Id("hi")).Uint64().Comment("the band is the scores of P in [lo, hi)"),
		jen.Id("err").Error().Comment("the first value out of range"),
	)
	b.f.Line()
	b.comment("Place is where a score prefix (a <Field>Prefix) or a whole Entry would rank: AroundScore reads the entries around it.")
	b.f.Type().Id("Place").Interface(jen.Id("place").Params().Params(jen.Float64(), jen.String(), jen.Error()))
	b.f.Line()
	b.f.Comment("place is the entry's own score and member.")
	b.f.Func().Params(jen.Id("e").Id("Entry")).Id("place").Params().Params(jen.Float64(), jen.String(), jen.Error()).Block(
		jen.Return(jen.Id("e").Dot("Encode").Call()))
	b.f.Line()
	b.scorePrefix()
	for i, fd := range b.l.Fields[:b.l.NumScore] {
		b.prefixType(i, fd)
		b.bandBetween(i, fd)
		b.bandIs(i, fd)
	}
}

// scorePrefix emits the fixed leading score fields that every Prefix type embeds.
func (b *board) scorePrefix() {
	f := b.f
	f.Comment("scorePrefix is the leading score fields fixed so far: their scores are those of P in [p, end).")
	f.Type().Id("scorePrefix").Struct(
		jen.List(jen.Id("p"), jen.Id("end")).Uint64(),
		jen.Id("err").Error().Comment("the first value out of range"),
	)
	f.Line()
	f.Comment("fix narrows the prefix to the next field's digit d, of the given weight.")
	f.Func().Params(jen.Id("s").Id("scorePrefix")).Id("fix").Params(jen.List(jen.Id("d"), jen.Id("weight")).Uint64()).Id("scorePrefix").Block(
		jen.Return(jen.Id("scorePrefix").Values(jen.Id("s").Dot("p").Op("+").Id("d").Op("*").Id("weight"), jen.Id("s").Dot("p").Op("+").Parens(jen.Id("d").Op("+").Lit(1)).Op("*").Id("weight"), jen.Nil())))
	f.Line()
	f.Comment("band is the band of the next field's digits dlo…dhi, of the given weight, under the prefix.")
	f.Func().Params(jen.Id("s").Id("scorePrefix")).Id("band").Params(jen.List(jen.Id("dlo"), jen.Id("dhi"), jen.Id("weight")).Uint64()).Id("Band").Block(
		jen.If(jen.Id("dlo").Op(">").Id("dhi")).Block(jen.Return(jen.Id("Band").Values())),
		jen.Return(jen.Id("Band").Values(jen.Dict{
			jen.Id("lo"): jen.Id("s").Dot("p").Op("+").Id("dlo").Op("*").Id("weight"),
			jen.Id("hi"): jen.Id("s").Dot("p").Op("+").Parens(jen.Id("dhi").Op("+").Lit(1)).Op("*").Id("weight"),
		})))
	f.Line()
	f.Comment("place is the place before every entry of the prefix: the lowest score of the entries ahead of it.")
	f.Func().Params(jen.Id("s").Id("scorePrefix")).Id("place").Params().Params(jen.Float64(), jen.String(), jen.Error()).Block(
		jen.Return(jen.Id("scoreOfP").Call(jen.Id("s").Dot("end")), jen.Lit(""), jen.Id("s").Dot("err")))
	f.Line()
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
	b.f.Type().Id(prefixName(fd)).Struct(jen.Id("scorePrefix"))
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
		return b.f.Func().Id(name), jen.Id("scorePrefix").Values()
	}
	prev := b.l.Fields[i-1]
	return b.f.Func().Params(jen.Id("p").Id(prefixName(prev))).Id(name), jen.Id("p").Dot("scorePrefix")
}

// earlierErr returns ret when the prefix the constructor starts from already holds an error.
func earlierErr(i int, ret func(err jen.Code) jen.Code) jen.Code {
	if i == 0 {
		return jen.Null()
	}
	return jen.If(jen.Id("p").Dot("err").Op("!=").Nil()).Block(ret(jen.Id("p").Dot("err")))
}

// bandBetween emits <Field>Between(lo, hi) Band.
func (b *board) bandBetween(i int, fd *layout.Field) {
	name := fd.Name + "Between"
	fixed := ""
	if i > 0 {
		fixed = " among the entries of the prefix"
	}
	b.comment("%s is the band of entries whose %s lies in [lo, hi]%s (empty when lo > hi).", name, fd.Name, fixed)
	fail := func(err jen.Code) jen.Code { return jen.Return(jen.Id("Band").Values(jen.Dict{jen.Id("err"): err})) }
	decl, from := b.bandCtor(i, name)
	body := []jen.Code{earlierErr(i, fail)}
	body = append(body, b.digitStmts(fd, "dlo", func() *jen.Statement { return jen.Id("lo") }, fail)...)
	body = append(body, b.digitStmts(fd, "dhi", func() *jen.Statement { return jen.Id("hi") }, fail)...)
	lo, hi := jen.Id("dlo"), jen.Id("dhi")
	if fd.Order == layout.Asc {
		lo, hi = jen.Id("dhi"), jen.Id("dlo") // the digits of an asc field order against its values
	}
	body = append(body, jen.Return(jen.Add(from).Dot("band").Call(lo, hi, b.c.fc(fd, "Weight"))))
	decl.Params(jen.List(jen.Id("lo"), jen.Id("hi")).Add(goType(fd))).Id("Band").Block(body...)
	b.f.Line()
}

// bandIs emits <Field>Is(v) <Field>Prefix.
func (b *board) bandIs(i int, fd *layout.Field) {
	name, typ := fd.Name+"Is", prefixName(fd)
	b.comment("%s fixes %s to v.", name, fd.Name)
	fail := func(err jen.Code) jen.Code {
		return jen.Return(jen.Id(typ).Values(jen.Id("scorePrefix").Values(jen.Dict{jen.Id("err"): err})))
	}
	decl, from := b.bandCtor(i, name)
	body := []jen.Code{earlierErr(i, fail)}
	body = append(body, b.digitStmts(fd, "d", param, fail)...)
	body = append(body, jen.Return(jen.Id(typ).Values(jen.Add(from).Dot("fix").Call(jen.Id("d"), b.c.fc(fd, "Weight")))))
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
		jen.If(jen.Id("band").Dot("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("band").Dot("err"))),
		jen.Return(jen.Id("decoding").Dot("Between").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("band").Dot("lo"), jen.Id("band").Dot("hi"), jen.Id("offset"), jen.Id("limit"))),
	)
	b.f.Line()
}

// countBand emits CountBetween: one ZCOUNT of the band's scores.
func (b *board) countBand(op catalog.Op) {
	b.comment("CountBetween returns the number of entries in the band, with one ZCOUNT in O(log n). A band built from a value out of range is an error matching ErrOutOfRange.")
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("band").Id("Band")).Params(jen.Int64(), jen.Error()).Block(
		jen.If(jen.Id("band").Dot("err").Op("!=").Nil()).Block(jen.Return(jen.Lit(0), jen.Id("band").Dot("err"))),
		jen.Return(jen.Id("decoding").Dot("CountBetween").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id("band").Dot("lo"), jen.Id("band").Dot("hi"))),
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

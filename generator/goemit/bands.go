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
	methods := []jen.Code{jen.Id("place").Params().Params(jen.Float64(), jen.String(), jen.Error())}
	if b.replaces() {
		methods = append(methods, jen.Comment("previousPlace is the same place in the layout this one replaces, or why that layout has none exactly."),
			jen.Id("previousPlace").Params().Params(jen.Float64(), jen.String(), jen.Error()))
	}
	b.f.Type().Id("Place").Interface(methods...)
	b.f.Line()
	b.f.Comment("place is the entry's own score and member.")
	b.f.Func().Params(jen.Id("e").Id("Entry")).Id("place").Params().Params(jen.Float64(), jen.String(), jen.Error()).Block(
		jen.Return(jen.Id("e").Dot("Encode").Call()))
	b.f.Line()
	if b.replaces() {
		b.comment("previousPlace refuses an entry's place on a board in the layout this one replaces, after this layout's own checks: the two layouts' orders are not known to agree on where an entry ranks among the others.")
		b.f.Func().Params(jen.Id("e").Id("Entry")).Id("previousPlace").Params().Params(jen.Float64(), jen.String(), jen.Error()).Block(
			jen.If(jen.List(jen.Id("_"), jen.Id("_"), jen.Err()).Op(":=").Id("e").Dot("Encode").Call(), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Lit(0), jen.Lit(""), jen.Err())),
			jen.Return(jen.Lit(0), jen.Lit(""), rt("NotInPreviousRead").Call(jen.Id(prevName("Fingerprint")), jen.Lit("the place of an Entry"),
				jen.Lit("its order may rank the entry elsewhere"))))
		b.f.Line()
	}
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
	if b.replaces() {
		b.f.Comment("previousPlace is the same place in the layout this one replaces, where that layout has one exactly.")
		b.f.Func().Params(jen.Id("p").Id(prefixName(fd))).Id("previousPlace").Params().Params(jen.Float64(), jen.String(), jen.Error()).Block(
			jen.Return(jen.Id("p").Dot("s").Dot("PreviousPlace").Call(jen.Id(prevName("Fingerprint")), jen.Id(prevName("decoding")).Dot("ScoreOfP"))))
		b.f.Line()
	}
}

// replaces says whether the layout names the one it replaces (previous:), whose board its
// code reads until a migration switches the board.
func (b *board) replaces() bool { return b.l.Previous != nil && b.l.Previous.Layout != nil }

// previousLead is the previous layout's leading field where it reads this layout's leading
// field's bands and places alike (LeadRoutes), with its range's bounds (the previous file's
// constants) as that field's type.
func (b *board) previousLead() (of *layout.Field, min, max jen.Code, ok bool) {
	if !b.replaces() {
		return nil, nil, nil, false
	}
	of, ok = b.l.Previous.LeadRoutes(b.l)
	bounds := previousBounds(b.l)
	if !ok || len(bounds) != 2 {
		return nil, nil, nil, false
	}
	return of, jen.Id(of.GoType).Call(jen.Id(prevName(bounds[0]))), jen.Id(of.GoType).Call(jen.Id(prevName(bounds[1]))), true
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
	band := rt("BandBetween").Types(jen.Id("Entry")).Call(from, jen.Id(digitFunc(fd)), jen.Id("lo"), jen.Id("hi"),
		b.c.fc(fd, "Weight"), jen.Lit(fd.Order == layout.Asc))
	of, min, max, ok := b.previousLead()
	if i > 0 || !ok {
		decl.Params(jen.List(jen.Id("lo"), jen.Id("hi")).Add(goType(fd))).Id("Band").Block(jen.Return(band))
		b.f.Line()
		return
	}
	decl.Params(jen.List(jen.Id("lo"), jen.Id("hi")).Add(goType(fd))).Id("Band").Block(
		jen.Id("band").Op(":=").Add(band),
		jen.Return(rt("BandWithPrevious").Call(jen.Id("band"), jen.Id("previous"+name).Call(jen.Id("lo"), jen.Id("hi")))))
	b.f.Line()
	b.comment("previous%s is %s(lo, hi) in the layout this one replaces: its band of the bounds clamped to its %s's range, which holds every value it stores.", name, name, of.Name)
	b.f.Func().Id("previous"+name).Params(jen.List(jen.Id("lo"), jen.Id("hi")).Add(goType(fd))).Id(prevName("Band")).Block(
		jen.List(jen.Id("plo"), jen.Id("phi"), jen.Id("ok")).Op(":=").Add(rt("ClampRange")).Call(jen.Id("lo"), jen.Id("hi"), min, max),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Id(prevName("Band")).Values())),
		jen.Return(jen.Id(prevName(of.Name+"Between")).Call(jen.Id("plo"), jen.Id("phi"))))
	b.f.Line()
}

// bandIs emits <Field>Is(v) <Field>Prefix.
func (b *board) bandIs(i int, fd *layout.Field) {
	name, typ := fd.Name+"Is", prefixName(fd)
	b.comment("%s fixes %s to v.", name, fd.Name)
	decl, from := b.bandCtor(i, name)
	fix := rt("FixValue").Call(from, jen.Id(digitFunc(fd)), jen.Id("v"), b.c.fc(fd, "Weight"))
	of, min, max, ok := b.previousLead()
	if i > 0 || !ok {
		decl.Params(jen.Id("v").Add(goType(fd))).Id(typ).Block(jen.Return(jen.Id(typ).Values(fix)))
		b.f.Line()
		return
	}
	decl.Params(jen.Id("v").Add(goType(fd))).Id(typ).Block(
		jen.Id("s").Op(":=").Add(fix),
		jen.Return(jen.Id(typ).Values(jen.Id("s").Dot("WithPrevious").Call(jen.Id("previous"+name).Call(jen.Id("v"))))))
	b.f.Line()
	b.comment("previous%s is %s(v) in the layout this one replaces, as a place: the one before every entry whose %s is v (rankgenrt.PreviousLeadPlace).", name, name, of.Name)
	b.f.Func().Id("previous" + name).Params(jen.Id("v").Add(goType(fd))).Add(rt("ScorePrefix")).Block(
		jen.Return(rt("PreviousLeadPlace").Call(jen.Id("v"), min, max, jen.Lit(fd.Order == layout.Asc),
			jen.Func().Params(jen.Id("p").Id(of.GoType)).Add(rt("ScorePrefix")).Block(
				jen.Return(jen.Id(prevName(of.Name+"Is")).Call(jen.Id("p")).Dot("s"))))))
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
is an error matching ErrOutOfRange, as is a nil place.%s`, lead, b.aroundDoc())
	read := jen.Id("decoding").Dot("AroundPlace").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("at").Dot("place"), jen.Id("before"), jen.Id("after"))
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("at").Id("Place"), jen.List(jen.Id("before"), jen.Id("after")).Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(
		jen.If(jen.Id("at").Op("==").Nil()).Block(jen.Return(jen.Nil(), rt("NilPlaceError").Call(jen.Lit(lead+"Prefix")))),
		jen.Return(b.routedAround(op, read)),
	)
	b.f.Line()
}

// aroundDoc says, where the schema names its previous layout, which places AroundScore reads
// on a board still in that layout.
func (b *board) aroundDoc() string {
	if !b.replaces() {
		return ""
	}
	if _, ok := b.l.Previous.LeadRoutes(b.l); ok {
		return fmt.Sprintf(" On a board still in the layout this one replaces, a place %sIs(v) is read there; other places are refused until a migration switches the board (ErrNotInPreviousLayout).", b.l.Fields[0].Name)
	}
	return " On a board still in the layout this one replaces, every place is refused until a migration switches the board (ErrNotInPreviousLayout)."
}

// routedAround is AroundScore's read (call) where the schema names its previous layout: on a
// board in that layout, the previous layout's same read around the place's form there
// (previousPlace), whose entries are read as this layout's; a place without one is refused.
func (b *board) routedAround(op catalog.Op, call *jen.Statement) jen.Code {
	if !b.replaces() {
		return call
	}
	result := jen.Index().Id("Ranked")
	previous := []jen.Code{ // a previous layout without score fields has no such read
		jen.If(jen.List(jen.Id("_"), jen.Id("_"), jen.Err()).Op(":=").Id("at").Dot("place").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Nil(), rt("NotInPreviousRead").Call(jen.Id(prevName("Fingerprint")), jen.Lit("AroundScore"), jen.Lit("it has no score fields"))),
	}
	if b.l.Previous.Layout.NumScore > 0 {
		previous = []jen.Code{jen.Return(jen.Id("decodingViaPrevious").Dot("AroundPlace").Call(jen.Id("ctx"), jen.Id("b").Dot("previous").Dot("core"),
			jen.Id(prevName(op.Function())), jen.Id("at").Dot("previousPlace"), jen.Id("before"), jen.Id("after")))}
	}
	return rt("Route").Call(jen.Id("b").Dot("Board"),
		jen.Func().Params().Params(result, jen.Error()).Block(jen.Return(call)),
		jen.Func().Params().Params(result.Clone(), jen.Error()).Block(previous...))
}

package goemit

import (
	"fmt"
	"math"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/layout"
)

// value turns a digit d back into the field's Go value.
func (c *codec) value(f *layout.Field, d jen.Code) jen.Code {
	desc := f.Order == layout.Desc
	conv := func(t string, x jen.Code) jen.Code {
		if t == "uint64" || t == "int64" {
			return x
		}
		return jen.Id(t).Call(x)
	}
	switch f.Kind {
	case layout.Uint:
		switch {
		case desc && f.Lo == 0:
			return conv(f.GoType, d)
		case desc:
			return conv(f.GoType, c.fc(f, "Min").Op("+").Add(d))
		}
		return conv(f.GoType, c.fc(f, "Max").Op("-").Add(d))
	case layout.Int:
		if desc {
			return conv(f.GoType, c.fc(f, "Min").Op("+").Int64().Call(d))
		}
		return conv(f.GoType, c.fc(f, "Max").Op("-").Int64().Call(d))
	case layout.Time:
		_, method, _, _ := unitInfo(f.Unit)
		var units jen.Code
		if desc {
			units = c.fc(f, "Min").Op("+").Int64().Call(d)
		} else {
			units = c.fc(f, "Max").Op("-").Int64().Call(d)
		}
		if f.Season {
			return jen.Qual("time", "Duration").Call(units).Op("*").Add(unitDuration(f.Unit))
		}
		if f.Unit == layout.Second {
			return jen.Qual("time", "Unix").Call(units, jen.Lit(0)).Dot("UTC").Call()
		}
		return jen.Qual("time", method).Call(units).Dot("UTC").Call()
	case layout.Enum:
		if desc {
			return jen.Id(f.Name).Call(d)
		}
		return jen.Id(enumLast(f)).Op("-").Id(f.Name).Call(d)
	case layout.Bool:
		if desc {
			return jen.Add(d).Op("==").Lit(1)
		}
		return jen.Add(d).Op("==").Lit(0)
	}
	panic("goemit: unknown kind")
}

// span is the largest digit a value of the field produces, as a constant expression.
func (c *codec) span(f *layout.Field) jen.Code {
	switch f.Kind {
	case layout.Enum:
		return jen.Uint64().Call(jen.Id(enumLast(f)))
	case layout.Bool:
		return jen.Lit(1)
	case layout.Uint:
		if f.Lo == 0 {
			return c.fc(f, "Max")
		}
	}
	return c.fc(f, "Max").Op("-").Add(c.fc(f, "Min"))
}

// locals records the locals a generated function has declared, to choose := or =.
type locals map[string]bool // looked up only, never iterated

// op is ":=" when any of names is new (declaring them all), else "=".
func (d locals) op(names ...string) string {
	for _, n := range names {
		if !d[n] {
			for _, n := range names {
				d[n] = true
			}
			return ":="
		}
	}
	return "="
}

func failScore(reason string) jen.Code {
	return jen.Return(jen.Id("Entry").Values(), jen.Qual(runtimePath, "BadScore").Call(jen.Id("score"), jen.Lit(reason)))
}

func failMember(reason string) jen.Code {
	return jen.Return(jen.Id("Entry").Values(), jen.Qual(runtimePath, "BadMember").Call(jen.Id("member"), jen.Lit(reason)))
}

// decode is Decode: the score's P, its fields, the member prefix's fields, then the id.
func (c *codec) decode() jen.Code {
	declared := locals{}
	body := c.decodeP(declared)
	body = append(body, c.decodeScoreFields(declared)...)
	rest := jen.Id("member")
	if c.l.HasMemberFields() {
		body = append(body, c.decodeMemberFields(declared)...)
		rest = jen.Id("member").Index(c.konst("prefixLen"), jen.Empty())
	}
	body = append(body, c.decodeID(declared, rest)...)
	body = append(body, jen.Return(jen.Id("e"), jen.Nil()))
	doc := `Decode recovers the entry from a score and member read from Redis. A pair this layout cannot
have written gives a *rankgenrt.DecodeError (errors.Is rankgenrt.ErrBadScore or ErrBadMember);
Decode never panics, whatever its input.`
	return jen.Comment(lineComment(doc)).Line().
		Func().Id("Decode").Params(jen.Id("score").Float64(), jen.Id("member").String()).Params(jen.Id("e").Id("Entry"), jen.Id("err").Error()).
		Block(body...)
}

// decodeP checks the score and declares p, the P it stands for.
func (c *codec) decodeP(declared locals) []jen.Code {
	l := c.l
	switch {
	case l.NumScore == 0:
		return []jen.Code{
			jen.Comment("No field lives in the score: Encode always writes 0."),
			jen.If(jen.Id("score").Op("!=").Lit(0).Op("||").Qual("math", "Signbit").Call(jen.Id("score"))).Block(failScore("not 0, the only score of this layout"))}
	case l.Score == layout.ScoreDecimal:
		declared["ok"] = true
		return []jen.Code{
			jen.List(jen.Id("p"), jen.Id("ok")).Op(":=").Id("pOf").Call(jen.Id("score")),
			jen.If(jen.Op("!").Id("ok")).Block(failScore(fmt.Sprintf("not P / 10^%d for a whole number P below %d", l.DecimalPlaces, l.ScoreRadix)))}
	case l.Score == layout.ScoreBits62:
		return []jen.Code{
			jen.Comment("Every score this layout writes is the double whose bit pattern is below scoreBound;"),
			jen.Comment("a negative score (-0 included), NaN or Inf has a pattern above it."),
			jen.Id("p").Op(":=").Qual("math", "Float64bits").Call(jen.Id("score")),
			jen.If(jen.Id("p").Op(">=").Add(c.konst("scoreBound"))).
				Block(failScore(fmt.Sprintf("not a bit pattern below %d", l.ScoreRadix)))}
	}
	return []jen.Code{
		jen.Comment("Every score this layout writes is a whole number in [0, scoreBound). The negated"),
		jen.Comment("comparison also refuses NaN; the sign bit refuses -0, which Encode never writes."),
		jen.If(jen.Qual("math", "Signbit").Call(jen.Id("score")).Op("||").
			Op("!").Parens(jen.Id("score").Op("<").Add(c.konst("scoreBound"))).Op("||").
			Id("score").Op("!=").Qual("math", "Trunc").Call(jen.Id("score"))).
			Block(failScore(fmt.Sprintf("not a whole number in [0, %d)", l.ScoreRadix))),
		jen.Id("p").Op(":=").Uint64().Call(jen.Id("score"))}
}

// decodeScoreFields sets each score field from its digit of p, refusing a digit beyond the
// field's range (possible only where the radix is wider than the range).
func (c *codec) decodeScoreFields(declared locals) []jen.Code {
	var body []jen.Code
	for i, f := range c.l.ScoreFields() {
		var d *jen.Statement
		switch {
		case i == 0 && f.Weight == 1:
			d = jen.Id("p")
		case i == 0:
			d = jen.Id("p").Op("/").Add(c.fc(f, "Weight"))
		case f.Weight == 1:
			d = jen.Id("p").Op("%").Add(c.fc(f, "Radix"))
		default:
			d = jen.Id("p").Op("/").Add(c.fc(f, "Weight")).Op("%").Add(c.fc(f, "Radix"))
		}
		if f.Span() < f.MaxDigit {
			body = append(body,
				jen.Id("d").Op(declared.op("d")).Add(d),
				jen.If(jen.Id("d").Op(">").Add(c.span(f))).Block(failScore(f.Name+" digit is outside its range")),
				jen.Id("e").Dot(f.Name).Op("=").Add(c.value(f, jen.Id("d"))))
		} else {
			body = append(body, jen.Id("e").Dot(f.Name).Op("=").Add(c.value(f, d)))
		}
	}
	return body
}

// decodeMemberFields checks the member prefix's shape and sets each member field from its text.
func (c *codec) decodeMemberFields(declared locals) []jen.Code {
	l := c.l
	shape := l.MemberPattern()
	cond := jen.Len(jen.Id("member")).Op("<").Add(c.konst("prefixLen"))
	fields := l.MemberFields()
	for i, f := range fields {
		if l.Separator == "" {
			break
		}
		// The separator runs from the field's end to the next field, or to the id.
		next := c.konst("prefixLen")
		if i+1 < len(fields) {
			next = c.fc(fields[i+1], "Off")
		}
		cond.Op("||").Id("member").Index(c.fc(f, "End"), next).Op("!=").Add(c.konst("separator"))
	}
	body := []jen.Code{
		jen.Comment(fmt.Sprintf("The member is %s.", shape)),
		jen.If(cond).Block(failMember("not of the form " + shape))}
	for _, f := range l.MemberFields() {
		parse, what := "ParseDec", "decimal"
		maxText := uint64(math.MaxUint64)
		if f.TextWidth < 20 {
			maxText = pow(10, f.TextWidth) - 1
		}
		if f.Hex {
			parse, what = "ParseHex", "lower-case hex"
			maxText = math.MaxUint64 // 16 hex digits: not the decimal bound above
			if f.TextWidth < 16 {
				maxText = 1<<(4*f.TextWidth) - 1
			}
		}
		bad := jen.Op("!").Id("ok")
		if f.Span() < maxText {
			bad = bad.Op("||").Id("d").Op(">").Add(c.span(f))
		}
		body = append(body,
			jen.List(jen.Id("d"), jen.Id("ok")).Op(declared.op("d", "ok")).Qual(runtimePath, parse).Call(jen.Id("member").Index(c.fc(f, "Off"), c.fc(f, "End"))),
			jen.If(bad).Block(failMember(fmt.Sprintf("%s is not %d %s digits of its range", f.Name, f.TextWidth, what))),
			jen.Id("e").Dot(f.Name).Op("=").Add(c.value(f, jen.Id("d"))))
	}
	return body
}

// decodeID sets the id from rest, the member after its prefix.
func (c *codec) decodeID(declared locals, rest jen.Code) []jen.Code {
	l := c.l
	if l.IDType == layout.IDUint64 {
		parse, want := "ParseID", " is not a uint64 in canonical decimal"
		if l.IDOrder == layout.Asc {
			parse, want = "ReversedUintOf", " is not 20 digits reversing a uint64"
		}
		return []jen.Code{
			jen.List(jen.Id("id"), jen.Id("ok")).Op(declared.op("id", "ok")).Qual(runtimePath, parse).Call(rest),
			jen.If(jen.Op("!").Id("ok")).Block(failMember(l.IDName + want)),
			jen.Id("e").Dot(l.IDName).Op("=").Id("id")}
	}
	var body []jen.Code
	if l.IDOrder == layout.Asc {
		body = []jen.Code{
			jen.List(jen.Id("id"), jen.Id("ok")).Op(declared.op("id", "ok")).Qual(runtimePath, "ReversedIDOf").Call(rest),
			jen.If(jen.Op("!").Id("ok")).Block(failMember(l.IDName + " is not an id's reversed text")),
		}
		rest = jen.Id("id")
	}
	return append(body,
		jen.Id("e").Dot(l.IDName).Op("=").Add(rest),
		jen.If(jen.Id("n").Op(":=").Len(jen.Id("e").Dot(l.IDName)), jen.Id("n").Op("==").Lit(0).Op("||").Id("n").Op(">").Add(c.idMaxBytes())).
			Block(failMember(fmt.Sprintf("%s is not 1 to %d bytes", l.IDName, l.MaxBytes))))
}

func pow(b uint64, n int) uint64 {
	r := uint64(1)
	for ; n > 0; n-- {
		r *= b
	}
	return r
}

// decimalPOf recovers P from a decimal score exactly like layout.POf.
func (c *codec) decimalPOf() jen.Code {
	doc := `pOf recovers P from a score P / scoreScale. The division is correctly rounded and the layout
keeps it injective, so P is round(score·scoreScale) or a neighbour: the candidate that divides
back to exactly score is P. Negative scores (-0 too, which Encode never writes) are refused.`
	return jen.Comment(lineComment(doc)).Line().
		Func().Id("pOf").Params(jen.Id("score").Float64()).Params(jen.Uint64(), jen.Bool()).Block(
		jen.If(jen.Qual("math", "Signbit").Call(jen.Id("score"))).Block(jen.Return(jen.Lit(0), jen.False())),
		jen.Id("c").Op(":=").Qual("math", "Round").Call(jen.Id("score").Op("*").Add(c.konst("scoreScale"))),
		jen.For(jen.List(jen.Id("_"), jen.Id("p")).Op(":=").Range().Index(jen.Op("...")).Float64().Values(jen.Id("c"), jen.Id("c").Op("-").Lit(1), jen.Id("c").Op("+").Lit(1))).Block(
			jen.If(jen.Id("p").Op(">=").Lit(0).Op("&&").Id("p").Op("<").Add(c.konst("scoreBound")).Op("&&").Id("p").Op("/").Add(c.konst("scoreScale")).Op("==").Id("score")).Block(
				jen.Return(jen.Uint64().Call(jen.Id("p")), jen.True()),
			),
		),
		jen.Return(jen.Lit(0), jen.False()),
	)
}

package goemit

import (
	"fmt"
	"math"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/layout"
)

// ev is the field's value in Encode: e.X.
func ev(f *layout.Field) *jen.Statement { return jen.Id("e").Dot(f.Name) }

// value is a field's value in generated code: each call gives a fresh expression (jennifer
// statements grow in place), e.X in Encode, v in a digitOf function.
type value func() *jen.Statement

// entryValue is field f of Encode's receiver: e.X.
func entryValue(f *layout.Field) value { return func() *jen.Statement { return ev(f) } }

// check is the range check of field f's value v, the one checker of Encode and of the board's
// updates; fail wraps the error in a return. A time field's check declares its local in units
// (timeLocal), which digit reads.
func (c *codec) check(f *layout.Field, v value, fail func(jen.Code) jen.Code) []jen.Code {
	switch f.Kind {
	case layout.Uint:
		return c.checkUint(f, v, fail)
	case layout.Int:
		return c.checkInt(f, v, fail)
	case layout.Enum:
		if uint64(len(f.Values)-1) >= typeMaxU(enumUnderlying(f)) {
			return nil // every value of the type is a name
		}
		err := rangeError(f.Name, v().Dot("String").Call(), f.Values[0], f.Values[len(f.Values)-1])
		return []jen.Code{jen.If(v().Op(">").Id(enumLast(f))).Block(fail(err))}
	case layout.Time:
		if f.Season {
			return c.checkOffset(f, v, fail)
		}
		return c.checkTime(f, v, fail)
	}
	return nil // bool: every value is in range
}

// or joins conditions with ||.
func or(conds []jen.Code) jen.Code {
	s := jen.Empty()
	for i, cond := range conds {
		if i > 0 {
			s.Op("||")
		}
		s.Add(cond)
	}
	return s
}

// checkUint compares with the range's ends where the Go type reaches beyond them.
func (c *codec) checkUint(f *layout.Field, v value, fail func(jen.Code) jen.Code) []jen.Code {
	var conds []jen.Code
	if f.Lo > 0 {
		conds = append(conds, v().Op("<").Add(c.fc(f, "Min")))
	}
	if f.Hi < typeMaxU(f.GoType) {
		conds = append(conds, v().Op(">").Add(c.fc(f, "Max")))
	}
	if len(conds) == 0 {
		return nil
	}
	arg := v()
	if f.GoType != "uint64" {
		arg = jen.Uint64().Call(v())
	}
	return []jen.Code{jen.If(or(conds)).Block(fail(jen.Qual(runtimePath, "UintRangeError").Call(jen.Lit(f.Name), arg, c.fc(f, "Min"), c.fc(f, "Max"))))}
}

// checkInt compares with the range's ends where the Go type reaches beyond them.
func (c *codec) checkInt(f *layout.Field, v value, fail func(jen.Code) jen.Code) []jen.Code {
	tmin, tmax := typeBoundsI(f.GoType)
	var conds []jen.Code
	if f.MinInt() > tmin {
		conds = append(conds, v().Op("<").Add(c.fc(f, "Min")))
	}
	if f.MaxInt() < tmax {
		conds = append(conds, v().Op(">").Add(c.fc(f, "Max")))
	}
	if len(conds) == 0 {
		return nil
	}
	arg := v()
	if f.GoType != "int64" {
		arg = jen.Int64().Call(v())
	}
	return []jen.Code{jen.If(or(conds)).Block(fail(jen.Qual(runtimePath, "IntRangeError").Call(jen.Lit(f.Name), arg, c.fc(f, "Min"), c.fc(f, "Max"))))}
}

// checkTime declares the time's local in units and compares it with the range; a unit finer
// than seconds is checked in whole seconds first, since counting it wraps around far outside.
func (c *codec) checkTime(f *layout.Field, v value, fail func(jen.Code) jen.Code) []jen.Code {
	_, method, _, _ := unitInfo(f.Unit)
	local := c.timeLocal(f)
	var conds []jen.Code
	if f.Unit != layout.Second {
		conds = append(conds, jen.Id("sec").Op("<").Add(c.fc(f, "SecLo")), jen.Id("sec").Op(">").Add(c.fc(f, "SecHi")))
	}
	if f.MinInt() > math.MinInt64 {
		conds = append(conds, jen.Id(local).Op("<").Add(c.fc(f, "Min")))
	}
	if f.MaxInt() < math.MaxInt64 {
		conds = append(conds, jen.Id(local).Op(">").Add(c.fc(f, "Max")))
	}
	out := []jen.Code{jen.Id(local).Op(":=").Add(v()).Dot(method).Call()}
	err := fail(jen.Qual(runtimePath, "TimeRangeError").Call(jen.Lit(f.Name), v(), jen.Lit(f.Format(f.Lo)), jen.Lit(f.Format(f.Hi))))
	switch {
	case f.Unit != layout.Second:
		out = append(out,
			jen.Comment(fmt.Sprintf("%s wraps around far outside the range, so whole seconds are checked too.", method)),
			jen.If(jen.Id("sec").Op(":=").Add(v()).Dot("Unix").Call(), or(conds)).Block(err))
	case len(conds) > 0:
		out = append(out, jen.If(or(conds)).Block(err))
	}
	return append(out, c.checkWholeUnits(f, v, fail))
}

// checkWholeUnits refuses a time finer than the field's unit: counting it in units would
// truncate it, and a value is stored exactly or refused.
func (c *codec) checkWholeUnits(f *layout.Field, v value, fail func(jen.Code) jen.Code) jen.Code {
	if f.Season { // a time.Duration: a multiple of the unit or not
		return jen.If(v().Op("%").Add(unitDuration(f.Unit)).Op("!=").Lit(0)).Block(
			fail(jen.Qual(runtimePath, "OffsetUnitError").Call(jen.Lit(f.Name), v(), unitDuration(f.Unit))))
	}
	fraction := v().Dot("Nanosecond").Call()
	if f.Unit != layout.Second {
		fraction = fraction.Op("%").Int().Call(unitDuration(f.Unit))
	}
	return jen.If(fraction.Op("!=").Lit(0)).Block(
		fail(jen.Qual(runtimePath, "TimeUnitError").Call(jen.Lit(f.Name), v(), unitDuration(f.Unit))))
}

// digit is the uint64 digit of a non-bool field's value v, after its check.
func (c *codec) digit(f *layout.Field, v value) jen.Code {
	desc := f.Order == layout.Desc
	switch f.Kind {
	case layout.Uint:
		var d jen.Code
		switch {
		case desc && f.Lo == 0:
			d = v()
		case desc:
			d = v().Op("-").Add(c.fc(f, "Min"))
		default:
			d = c.fc(f, "Max").Op("-").Add(v())
		}
		if f.GoType == "uint64" {
			return d
		}
		return jen.Uint64().Call(d)
	case layout.Int:
		x := v()
		if f.GoType != "int64" {
			x = jen.Int64().Call(v())
		}
		if desc {
			return jen.Uint64().Call(x.Op("-").Add(c.fc(f, "Min")))
		}
		return jen.Uint64().Call(c.fc(f, "Max").Op("-").Add(x))
	case layout.Time:
		if desc {
			return jen.Uint64().Call(jen.Id(c.timeLocal(f)).Op("-").Add(c.fc(f, "Min")))
		}
		return jen.Uint64().Call(c.fc(f, "Max").Op("-").Id(c.timeLocal(f)))
	case layout.Enum:
		if desc {
			return jen.Uint64().Call(v())
		}
		return jen.Uint64().Call(jen.Id(enumLast(f)).Op("-").Add(v()))
	}
	panic("goemit: digit of a bool field")
}

// encode is Encode: every field's and the id's check, then the score, then the member.
func (c *codec) encode() jen.Code {
	l := c.l
	fail := func(err jen.Code) jen.Code { return jen.Return(jen.Lit(0), jen.Lit(""), err) }
	var body []jen.Code
	for _, f := range l.Fields {
		body = append(body, c.check(f, entryValue(f), fail)...)
	}
	if l.IDType == layout.IDString {
		body = append(body, jen.If(
			jen.Id("n").Op(":=").Len(jen.Id("e").Dot(l.IDName)),
			jen.Id("n").Op("==").Lit(0).Op("||").Id("n").Op(">").Add(c.idMaxBytes()),
		).Block(fail(jen.Qual(runtimePath, "IDLengthError").Call(jen.Lit(l.IDName), jen.Id("n"), c.idMaxBytes()))))
	}
	score := jen.Code(jen.Lit(0))
	if l.NumScore > 0 {
		body = append(body, c.encodeP()...)
		score = jen.Float64().Call(jen.Id("p"))
		switch l.Score {
		case layout.ScoreDecimal:
			score = jen.Float64().Call(jen.Id("p")).Op("/").Add(c.konst("scoreScale"))
		case layout.ScoreBits62:
			score = jen.Qual("math", "Float64frombits").Call(jen.Id("p"))
		}
	}
	id := jen.Id("e").Dot(l.IDName)
	var member jen.Code = id
	if l.IDType == layout.IDUint64 {
		member = jen.Qual("strconv", "FormatUint").Call(id, jen.Lit(10))
	}
	if l.HasPrefix() {
		var prefix []jen.Code
		prefix, member = c.encodePrefix()
		body = append(body, prefix...)
	}
	body = append(body, jen.Return(score, member, jen.Nil()))

	doc := `Encode returns the score and member Redis stores for e. A field or id outside the layout
gives a *rankgenrt.RangeError (errors.Is rankgenrt.ErrOutOfRange) naming the field and value,
and so does a time finer than its field's unit: it is refused, never truncated.`
	return jen.Comment(lineComment(doc)).Line().
		Func().Params(jen.Id("e").Id("Entry")).Id("Encode").Params().
		Params(jen.Id("score").Float64(), jen.Id("member").String(), jen.Id("err").Error()).
		Block(body...)
}

// encodeP declares p, the score's mixed-radix integer: P = Σ digit·Weight, a bool field added
// where it ranks first.
func (c *codec) encodeP() []jen.Code {
	var sum *jen.Statement
	var bools []jen.Code
	for _, f := range c.l.ScoreFields() {
		if f.Kind == layout.Bool {
			bools = append(bools, jen.If(c.boolFirst(f)).Block(jen.Id("p").Op("+=").Add(c.fc(f, "Weight"))))
			continue
		}
		d := c.digit(f, entryValue(f))
		if f.Kind == layout.Uint && f.GoType == "uint64" && (f.Order == layout.Asc || f.Lo > 0) {
			d = jen.Parens(d) // a bare difference: parenthesize before multiplying
		}
		term := jen.Add(d).Op("*").Add(c.fc(f, "Weight"))
		if sum == nil {
			sum = term
		} else {
			sum = sum.Op("+").Line().Add(term)
		}
	}
	body := []jen.Code{jen.Var().Id("p").Uint64()}
	if sum != nil {
		body = []jen.Code{jen.Id("p").Op(":=").Add(sum)}
	}
	return append(body, bools...)
}

// boolFirst is the condition under which a bool field's digit is 1: its value is the one
// that ranks first.
func (c *codec) boolFirst(f *layout.Field) jen.Code {
	if f.Order == layout.Asc {
		return jen.Op("!").Add(ev(f))
	}
	return ev(f)
}

// encodePrefix writes the member prefix, fixed-width digits and separators, and returns the
// statements and the member expression (the prefix, then the id).
func (c *codec) encodePrefix() ([]jen.Code, jen.Code) {
	l := c.l
	id := jen.Id("e").Dot(l.IDName)
	if !l.HasMemberFields() { // the id alone, reversed (id order: asc)
		note := jen.Comment("The member is the id's reversed text, so that ties rank by id ascending.")
		if l.IDType == layout.IDUint64 {
			return []jen.Code{note, jen.Var().Id("buf").Index(jen.Lit(20)).Byte().Comment("20: the digits of every reversed uint64")},
				jen.String().Call(jen.Qual(runtimePath, "AppendReversedUint").Call(jen.Id("buf").Index(jen.Empty(), jen.Lit(0)), id))
		}
		return []jen.Code{note}, jen.String().Call(jen.Qual(runtimePath, "AppendReversedID").Call(jen.Nil(), id))
	}
	body := []jen.Code{
		jen.Comment(fmt.Sprintf("The member is %s:", l.MemberPattern())),
		jen.Comment("fixed-width digits keep its byte order equal to the rank order.")}
	if l.IDOrder == layout.Asc {
		body = append(body, jen.Comment("The id's text is reversed, so that ties rank by id ascending."))
	}
	buf := "prefix"
	if l.IDType == layout.IDUint64 {
		buf = "buf"
		body = append(body, jen.Var().Id(buf).Index(c.konst("prefixLen").Op("+").Lit(20)).Byte().Comment("20: the longest uint64 in decimal"))
	} else {
		body = append(body, jen.Var().Id(buf).Index(c.konst("prefixLen")).Byte())
	}
	for _, f := range l.MemberFields() {
		text := jen.Id(buf).Index(c.fc(f, "Off"), c.fc(f, "End"))
		put := "PutDec"
		if f.Hex {
			put = "PutHex"
		}
		if f.Kind == layout.Bool {
			// A bool's digit is 0 or 1: write 0, then 1 where it ranks first.
			body = append(body,
				jen.Qual(runtimePath, put).Call(text, jen.Lit(0)),
				jen.If(c.boolFirst(f)).Block(jen.Qual(runtimePath, put).Call(text.Clone(), jen.Lit(1))))
		} else {
			body = append(body, jen.Qual(runtimePath, put).Call(text, c.digit(f, entryValue(f))))
		}
		if l.Separator != "" {
			body = append(body, jen.Copy(jen.Id(buf).Index(c.fc(f, "End"), jen.Empty()), c.konst("separator")))
		}
	}
	switch {
	case l.IDOrder == layout.Asc && l.IDType == layout.IDUint64:
		return body, jen.String().Call(jen.Qual(runtimePath, "AppendReversedUint").Call(jen.Id(buf).Index(jen.Empty(), c.konst("prefixLen")), id))
	case l.IDOrder == layout.Asc:
		return body, jen.String().Call(jen.Qual(runtimePath, "AppendReversedID").Call(jen.Id(buf).Index(jen.Empty(), jen.Empty()), id))
	case l.IDType == layout.IDUint64:
		return body, jen.String().Call(jen.Qual("strconv", "AppendUint").Call(jen.Id(buf).Index(jen.Empty(), c.konst("prefixLen")), id, jen.Lit(10)))
	}
	return body, jen.String().Call(jen.Id(buf).Index(jen.Empty(), jen.Empty())).Op("+").Add(id)
}

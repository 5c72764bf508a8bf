package goemit

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/layout"
)

// codec emits the layout-specific codec: constants, Entry, enum types, Encode, Decode and
// Compare. Function bodies are built before the constant block, so that the block holds
// exactly the constants the code uses (staticcheck flags unused ones).
type codec struct {
	l     *layout.Layout
	used  map[string]bool          // constant names referenced so far; only looked up, never iterated
	bases map[*layout.Field]string // each field's unexported base name; only looked up
}

func newCodec(l *layout.Layout) *codec {
	bases, _ := baseNames(l) // Generate has checked the error
	return &codec{l: l, used: map[string]bool{}, bases: bases}
}

// emitCodec adds the codec to the file. The constant block is left empty, to be filled by
// constants() once the whole file is built: the board's methods use the constants too.
func emitCodec(f *jen.File, c *codec) (constBlock *jen.Statement) {
	l := c.l
	entry := c.entryType()
	encode := c.encode()
	decode := c.decode()
	compare := c.compare()
	var pOf jen.Code
	if l.Score == layout.ScoreDecimal && l.NumScore > 0 {
		pOf = c.decimalPOf()
	}

	f.Comment("The generated code and the runtime package must agree on their contract; either")
	f.Comment("constant fails to compile when they drift apart. Regenerate with the matching rankgen.")
	f.Const().Defs(
		jen.Id("_").Op("=").Qual(runtimePath, "EnforceVersion").Call(jen.Lit(genVersion).Op("-").Qual(runtimePath, "MinVersion")),
		jen.Id("_").Op("=").Qual(runtimePath, "EnforceVersion").Call(jen.Qual(runtimePath, "MaxVersion").Op("-").Lit(genVersion)),
	)
	f.Line()
	f.Comment("Fingerprint identifies the stored encoding: it changes exactly when a change to the schema")
	f.Comment("changes how entries are stored or ordered, so a board written by another layout is refused.")
	f.Const().Id("Fingerprint").Op("=").Lit(l.Fingerprint)
	f.Line()
	constBlock = &jen.Statement{}
	f.Add(constBlock)
	f.Line()
	f.Add(entry)
	for _, fd := range l.Fields {
		if fd.Kind == layout.Enum {
			f.Line()
			f.Add(c.enumType(fd))
		}
	}
	f.Line()
	f.Add(encode)
	f.Line()
	f.Add(decode)
	if pOf != nil {
		f.Line()
		f.Add(pOf)
	}
	f.Line()
	f.Add(compare)
	return constBlock
}

// ---- names ----

// lowerCamel turns an exported name into an unexported one: Points → points,
// PlayerID → playerID, ID → id, URLCount → urlCount.
func lowerCamel(s string) string {
	r := []rune(s)
	n := 0
	for n < len(r) && unicode.IsUpper(r[n]) {
		n++
	}
	if n > 1 && n < len(r) && unicode.IsLower(r[n]) {
		n-- // the last upper-case letter starts the next word
	}
	for i := 0; i < n; i++ {
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

// baseNames gives every field the unexported name its constants and locals start with: its
// name in lowerCamel, or, for the rare fields whose lowerCamel forms coincide (ID and Id),
// that form followed by the field's position. It fails when names still coincide.
func baseNames(l *layout.Layout) (map[*layout.Field]string, error) {
	count := map[string]int{}
	for _, f := range l.Fields {
		count[lowerCamel(f.Name)]++
	}
	bases := map[*layout.Field]string{}
	seen := map[string]string{}
	for i, f := range l.Fields {
		b := lowerCamel(f.Name)
		if count[b] > 1 {
			b += strconv.Itoa(i + 1)
		}
		if other, dup := seen[b]; dup {
			return nil, fmt.Errorf("goemit: fields %s and %s both become the Go name %s; rename one", other, f.Name, b)
		}
		seen[b] = f.Name
		bases[f] = b
	}
	return bases, nil
}

// konst refers to a package-level constant, recording that the constant block needs it.
func (c *codec) konst(name string) *jen.Statement {
	c.used[name] = true
	return jen.Id(name)
}

// fc is the constant of field f with the given suffix: Min, Max, SecLo, SecHi, Weight, Radix
// (and Names for an enum's names). No suffix is a suffix of another, and none ends like an
// Encode local (Sec, Ms, Us), so no two names clash.
func (c *codec) fc(f *layout.Field, suffix string) *jen.Statement {
	return c.konst(c.bases[f] + suffix)
}

func (c *codec) idMaxBytes() *jen.Statement { return c.konst(lowerCamel(c.l.IDName) + "MaxBytes") }

// enumLast is the constant of an enum field's highest value.
func enumLast(f *layout.Field) string { return layout.EnumConst(f, f.Values[len(f.Values)-1]) }

// enumUnderlying is the narrowest unsigned type holding every index of an enum.
func enumUnderlying(f *layout.Field) string {
	switch n := len(f.Values); {
	case n <= 1<<8:
		return "uint8"
	case n <= 1<<16:
		return "uint16"
	}
	return "uint32"
}

// goType is the Go type of a field.
func goType(f *layout.Field) jen.Code {
	if f.Kind == layout.Time {
		return jen.Qual("time", "Time")
	}
	return jen.Id(f.GoType)
}

// typeMax and typeMin are the bounds of an integer Go type, as keys would store them.
func typeMaxU(goType string) uint64 {
	switch goType {
	case "uint8":
		return math.MaxUint8
	case "uint16":
		return math.MaxUint16
	case "uint32":
		return math.MaxUint32
	}
	return math.MaxUint64
}

func typeBoundsI(goType string) (int64, int64) {
	switch goType {
	case "int8":
		return math.MinInt8, math.MaxInt8
	case "int16":
		return math.MinInt16, math.MaxInt16
	case "int32":
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// unitsPerSecond, the Time method that counts a unit, and a suffix naming it.
func unitInfo(u layout.Unit) (perSec int64, method, suffix, words string) {
	switch u {
	case layout.Milli:
		return 1000, "UnixMilli", "Ms", "milliseconds"
	case layout.Micro:
		return 1000000, "UnixMicro", "Us", "microseconds"
	}
	return 1, "Unix", "Sec", "seconds"
}

// timeLocal is the Encode local holding a time field's value in units.
func (c *codec) timeLocal(f *layout.Field) string {
	_, _, suffix, _ := unitInfo(f.Unit)
	return c.bases[f] + suffix
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// secBounds are the whole seconds a ms/µs time field's range spans, kept inside what
// layout.TimeUnits accepts, so that counting units of an accepted time cannot overflow.
func secBounds(f *layout.Field) (lo, hi int64) {
	k, _, _, _ := unitInfo(f.Unit)
	lo, hi = floorDiv(f.MinInt(), k), floorDiv(f.MaxInt(), k)
	lo = max(lo, math.MinInt64/k+1)
	hi = min(hi, math.MaxInt64/k-1)
	return lo, hi
}

// ---- literals ----

func unum(v uint64) *jen.Statement { return jen.Id(strconv.FormatUint(v, 10)) }
func inum(v int64) *jen.Statement  { return jen.Id(strconv.FormatInt(v, 10)) }

// pow2 writes a power of two of at least 2^8 as a shift, which is how a reviewer thinks of
// bit fields; other numbers in decimal.
func pow2(v uint64) *jen.Statement {
	if v >= 1<<8 && v&(v-1) == 0 {
		return jen.Id(fmt.Sprintf("1 << %d", bits.TrailingZeros64(v)))
	}
	return unum(v)
}

// ---- constants ----

// constants is the layout as named constants, each with the comment saying what it is. Only
// constants the emitted code uses are declared.
func (c *codec) constants() jen.Code {
	l := c.l
	var defs []jen.Code
	add := func(name string, value jen.Code, comment string) {
		if !c.used[name] {
			return
		}
		d := jen.Id(name).Op("=").Add(value)
		if comment != "" {
			d.Comment(comment)
		}
		defs = append(defs, d)
	}
	for _, f := range l.Fields {
		n := c.bases[f]
		switch f.Kind {
		case layout.Uint:
			add(n+"Min", unum(f.Lo), "")
			add(n+"Max", unum(f.Hi), "")
		case layout.Int:
			add(n+"Min", inum(f.MinInt()), "")
			add(n+"Max", inum(f.MaxInt()), "")
		case layout.Time:
			_, _, _, words := unitInfo(f.Unit)
			add(n+"Min", inum(f.MinInt()), fmt.Sprintf("%s, in %s since the Unix epoch", f.Format(f.Lo), words))
			add(n+"Max", inum(f.MaxInt()), f.Format(f.Hi))
			lo, hi := secBounds(f)
			add(n+"SecLo", inum(lo), "the range in whole seconds")
			add(n+"SecHi", inum(hi), "")
		}
		if f.Place == layout.InScore {
			add(n+"Weight", pow2(f.Weight), "")
			add(n+"Radix", pow2(f.Radix()), "")
		}
	}
	if l.Score == layout.ScoreDecimal {
		add("scoreBound", pow2(l.ScoreRadix), "P is a whole number below this")
	} else {
		add("scoreBound", pow2(l.ScoreRadix), "every score is a whole number below this")
	}
	add("scoreScale", jen.Id(fmt.Sprintf("1e%d", l.DecimalPlaces)), fmt.Sprintf("the score is P / 10^%d", l.DecimalPlaces))
	add("prefixLen", jen.Lit(l.PrefixLen), "bytes of the member before the id")
	add("separator", jen.Lit(l.Separator), "")
	if l.IDType == layout.IDString {
		add(lowerCamel(l.IDName)+"MaxBytes", jen.Lit(l.MaxBytes), "the longest id accepted")
	}
	if len(defs) == 0 {
		return jen.Null()
	}
	comment := []string{"The layout as constants. A field's digit is its value minus Min (desc) or Max minus its value (asc),"}
	switch {
	case l.NumScore == 0:
		comment = append(comment, "so that a larger digit ranks first. Every field lives in the member prefix; the score is 0.")
	case l.Score == layout.ScoreDecimal:
		comment = append(comment, "so that a larger digit ranks first. The score is P / scoreScale, P = Σ digit·Weight.")
	default:
		comment = append(comment, "so that a larger digit ranks first. The score is P = Σ digit·Weight, a whole number below 2^53.")
	}
	if l.HasPrefix() {
		comment = append(comment, "Member fields are fixed-width text before the id: "+l.MemberPattern()+".")
	}
	return jen.Comment(lineComment(strings.Join(comment, "\n"))).Line().Const().Defs(defs...)
}

// ---- Entry and enums ----

func (c *codec) entryType() jen.Code {
	l := c.l
	var fields []jen.Code
	idType := jen.String()
	idDoc := fmt.Sprintf("%s is the entry's id: 1 to %d bytes, any bytes.", l.IDName, l.MaxBytes)
	if l.IDType == layout.IDUint64 {
		idType = jen.Uint64()
		idDoc = fmt.Sprintf("%s is the entry's id, stored as its decimal text.", l.IDName)
	}
	fields = append(fields, jen.Comment(lineComment(idDoc)), jen.Id(l.IDName).Add(idType))
	for _, f := range l.Fields {
		fields = append(fields, jen.Line(), jen.Comment(lineComment(fieldDoc(f))), jen.Id(f.Name).Add(goType(f)))
	}
	doc := "Entry is one entry of the board: the id, then the fields, most significant first."
	return jen.Comment(doc).Line().Type().Id("Entry").Struct(fields...)
}

// fieldDoc is the doc comment of an Entry field: the schema's doc, then range and order.
func fieldDoc(f *layout.Field) string {
	var b strings.Builder
	if f.Doc != "" {
		b.WriteString(f.Doc + "\n")
	}
	order := "higher ranks first"
	if f.Order == layout.Asc {
		order = "lower ranks first"
	}
	switch f.Kind {
	case layout.Bool:
		order = "true ranks first"
		if f.Order == layout.Asc {
			order = "false ranks first"
		}
		b.WriteString(order + ".")
	case layout.Enum:
		fmt.Fprintf(&b, "%s, %s.", f.Range(), order)
	case layout.Time:
		_, _, _, words := unitInfo(f.Unit)
		order = "later ranks first"
		if f.Order == layout.Asc {
			order = "earlier ranks first"
		}
		fmt.Fprintf(&b, "%s, truncated to whole %s; %s.", f.Range(), words, order)
	default:
		fmt.Fprintf(&b, "%s, %s.", f.Range(), order)
	}
	return b.String()
}

func (c *codec) enumType(f *layout.Field) jen.Code {
	name := f.Name
	recv := strings.ToLower(name[:1])
	names := c.bases[f] + "Names"
	first, last := f.Values[0], f.Values[len(f.Values)-1]
	rangeErr := func(value jen.Code) jen.Code {
		return rangeError(name, value, first, last)
	}

	var consts []jen.Code
	for i, v := range f.Values {
		if i == 0 {
			consts = append(consts, jen.Id(layout.EnumConst(f, v)).Id(name).Op("=").Iota())
		} else {
			consts = append(consts, jen.Id(layout.EnumConst(f, v)))
		}
	}
	var guard []jen.Code
	guard = append(guard, jen.Var().Id("x").Index(jen.Lit(1)).Struct())
	for i, v := range f.Values {
		guard = append(guard, jen.Id("_").Op("=").Id("x").Index(jen.Id(layout.EnumConst(f, v)).Op("-").Lit(i)))
	}
	var nameLits []jen.Code
	for _, v := range f.Values {
		nameLits = append(nameLits, jen.Lit(v))
	}
	order := "higher"
	if f.Order == layout.Asc {
		order = "lower"
	}
	doc := fmt.Sprintf("%s is the type of field %s: %s; %s values rank first.", name, name, strings.Join(f.Values, " < "), order)
	if f.Doc != "" {
		doc = f.Doc + "\n" + doc
	}
	s := jen.Comment(lineComment(doc)).Line().
		Type().Id(name).Id(enumUnderlying(f)).Line().Line().
		Commentf("Values of %s, lowest first.", name).Line().
		Const().Defs(consts...).Line().Line().
		Comment("An \"invalid array index\" compiler error here means that the values above changed;").Line().
		Comment("regenerate this file with rankgen.").Line().
		Func().Id("_").Params().Block(guard...).Line().Line().
		Var().Id(names).Op("=").Index(jen.Op("...")).String().Values(nameLits...).Line().Line().
		Commentf("String returns the value's name as the schema spells it, or %s(n) for an unknown n.", name).Line().
		Func().Params(jen.Id(recv).Id(name)).Id("String").Params().String().Block(
		jen.If(jen.Int().Call(jen.Id(recv)).Op("<").Len(jen.Id(names))).Block(
			jen.Return(jen.Id(names).Index(jen.Id(recv))),
		),
		jen.Return(jen.Lit(name+"(").Op("+").Qual("strconv", "Itoa").Call(jen.Int().Call(jen.Id(recv))).Op("+").Lit(")")),
	).Line().Line().
		Comment("MarshalText writes the value's name, so entries encode to JSON the way rankgen's CLI reads").Line().
		Comment("them.").Line().
		Func().Params(jen.Id(recv).Id(name)).Id("MarshalText").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.If(jen.Int().Call(jen.Id(recv)).Op(">=").Len(jen.Id(names))).Block(
			jen.Return(jen.Nil(), rangeErr(jen.Id(recv).Dot("String").Call())),
		),
		jen.Return(jen.Index().Byte().Call(jen.Id(names).Index(jen.Id(recv))), jen.Nil()),
	).Line().Line().
		Comment("UnmarshalText reads a value's name.").Line().
		Func().Params(jen.Id(recv).Op("*").Id(name)).Id("UnmarshalText").Params(jen.Id("text").Index().Byte()).Error().Block(
		jen.For(jen.List(jen.Id("i"), jen.Id("n")).Op(":=").Range().Id(names)).Block(
			jen.If(jen.String().Call(jen.Id("text")).Op("==").Id("n")).Block(
				jen.Op("*").Id(recv).Op("=").Id(name).Call(jen.Id("i")),
				jen.Return(jen.Nil()),
			),
		),
		jen.Return(rangeErr(jen.Qual("strconv", "Quote").Call(jen.String().Call(jen.Id("text"))))),
	)
	return s
}

// rangeError is a *rankgenrt.RangeError literal, its fields in reading order.
func rangeError(field string, value jen.Code, min, max string) jen.Code {
	return jen.Op("&").Qual(runtimePath, "RangeError").Values(
		jen.Id("Field").Op(":").Lit(field), jen.Id("Value").Op(":").Add(value),
		jen.Id("Min").Op(":").Lit(min), jen.Id("Max").Op(":").Lit(max))
}

// ---- Encode ----

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
	or := func(conds []jen.Code) jen.Code {
		s := jen.Empty()
		for i, cond := range conds {
			if i > 0 {
				s.Op("||")
			}
			s.Add(cond)
		}
		return s
	}
	switch f.Kind {
	case layout.Uint:
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
	case layout.Int:
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
	case layout.Enum:
		if uint64(len(f.Values)-1) >= typeMaxU(enumUnderlying(f)) {
			return nil
		}
		err := rangeError(f.Name, v().Dot("String").Call(), f.Values[0], f.Values[len(f.Values)-1])
		return []jen.Code{jen.If(v().Op(">").Id(enumLast(f))).Block(fail(err))}
	case layout.Time:
		_, method, _, _ := unitInfo(f.Unit)
		local := c.timeLocal(f)
		var conds []jen.Code
		var out []jen.Code
		if f.Unit != layout.Second {
			conds = append(conds, jen.Id("sec").Op("<").Add(c.fc(f, "SecLo")), jen.Id("sec").Op(">").Add(c.fc(f, "SecHi")))
		}
		if f.MinInt() > math.MinInt64 {
			conds = append(conds, jen.Id(local).Op("<").Add(c.fc(f, "Min")))
		}
		if f.MaxInt() < math.MaxInt64 {
			conds = append(conds, jen.Id(local).Op(">").Add(c.fc(f, "Max")))
		}
		out = append(out, jen.Id(local).Op(":=").Add(v()).Dot(method).Call())
		err := fail(jen.Qual(runtimePath, "TimeRangeError").Call(jen.Lit(f.Name), v(), jen.Lit(f.Format(f.Lo)), jen.Lit(f.Format(f.Hi))))
		if f.Unit != layout.Second {
			out = append(out,
				jen.Comment(fmt.Sprintf("%s wraps around far outside the range, so whole seconds are checked too.", method)),
				jen.If(jen.Id("sec").Op(":=").Add(v()).Dot("Unix").Call(), or(conds)).Block(err))
		} else if len(conds) > 0 {
			out = append(out, jen.If(or(conds)).Block(err))
		}
		return out
	}
	return nil // bool: every value is in range
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

	// The score: P = Σ digit·Weight.
	score := jen.Code(jen.Lit(0))
	if l.NumScore > 0 {
		var sum *jen.Statement
		var bools []jen.Code
		for _, f := range l.ScoreFields() {
			if f.Kind == layout.Bool {
				cond := ev(f)
				if f.Order == layout.Asc {
					cond = jen.Op("!").Add(ev(f))
				}
				bools = append(bools, jen.If(cond).Block(jen.Id("p").Op("+=").Add(c.fc(f, "Weight"))))
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
		if sum != nil {
			body = append(body, jen.Id("p").Op(":=").Add(sum))
		} else {
			body = append(body, jen.Var().Id("p").Uint64())
		}
		body = append(body, bools...)
		if l.Score == layout.ScoreDecimal {
			score = jen.Float64().Call(jen.Id("p")).Op("/").Add(c.konst("scoreScale"))
		} else {
			score = jen.Float64().Call(jen.Id("p"))
		}
	}

	id := jen.Id("e").Dot(l.IDName)
	var member jen.Code = id
	if l.IDType == layout.IDUint64 {
		member = jen.Qual("strconv", "FormatUint").Call(id, jen.Lit(10))
	}
	if l.HasPrefix() {
		body = append(body,
			jen.Comment(fmt.Sprintf("The member is %s:", l.MemberPattern())),
			jen.Comment("fixed-width digits keep its byte order equal to the rank order."))
		buf := "prefix"
		size := c.konst("prefixLen")
		if l.IDType == layout.IDUint64 {
			buf = "buf"
			size = c.konst("prefixLen").Op("+").Lit(20)
			body = append(body, jen.Var().Id(buf).Index(size).Byte().Comment("20: the longest uint64 in decimal"))
		} else {
			body = append(body, jen.Var().Id(buf).Index(size).Byte())
		}
		for _, f := range l.MemberFields() {
			end := f.Offset + f.TextWidth
			text := jen.Id(buf).Index(jen.Lit(f.Offset), jen.Lit(end))
			put := "PutDec"
			if f.Hex {
				put = "PutHex"
			}
			if f.Kind == layout.Bool {
				// A bool's digit is 0 or 1: write 0, then 1 where it ranks first.
				cond := ev(f)
				if f.Order == layout.Asc {
					cond = jen.Op("!").Add(ev(f))
				}
				body = append(body,
					jen.Qual(runtimePath, put).Call(text, jen.Lit(0)),
					jen.If(cond).Block(jen.Qual(runtimePath, put).Call(text.Clone(), jen.Lit(1))))
			} else {
				body = append(body, jen.Qual(runtimePath, put).Call(text, c.digit(f, entryValue(f))))
			}
			if l.Separator != "" {
				body = append(body, jen.Copy(jen.Id(buf).Index(jen.Lit(end), jen.Empty()), c.konst("separator")))
			}
		}
		if l.IDType == layout.IDUint64 {
			member = jen.String().Call(jen.Qual("strconv", "AppendUint").Call(jen.Id(buf).Index(jen.Empty(), c.konst("prefixLen")), id, jen.Lit(10)))
		} else {
			member = jen.String().Call(jen.Id(buf).Index(jen.Empty(), jen.Empty())).Op("+").Add(id)
		}
	}
	body = append(body, jen.Return(score, member, jen.Nil()))

	doc := `Encode returns the score and member Redis stores for e. A field or id outside the layout
gives a *rankgenrt.RangeError (errors.Is rankgenrt.ErrOutOfRange) naming the field and value.`
	return jen.Comment(lineComment(doc)).Line().
		Func().Params(jen.Id("e").Id("Entry")).Id("Encode").Params().
		Params(jen.Id("score").Float64(), jen.Id("member").String(), jen.Id("err").Error()).
		Block(body...)
}

// ---- Decode ----

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

func (c *codec) decode() jen.Code {
	l := c.l
	failScore := func(reason string) jen.Code {
		return jen.Return(jen.Id("Entry").Values(), jen.Qual(runtimePath, "BadScore").Call(jen.Id("score"), jen.Lit(reason)))
	}
	failMember := func(reason string) jen.Code {
		return jen.Return(jen.Id("Entry").Values(), jen.Qual(runtimePath, "BadMember").Call(jen.Id("member"), jen.Lit(reason)))
	}
	var body []jen.Code
	declared := map[string]bool{} // locals declared so far (looked up only)
	assign := func(names ...string) string {
		for _, n := range names {
			if !declared[n] {
				for _, n := range names {
					declared[n] = true
				}
				return ":="
			}
		}
		return "="
	}

	switch {
	case l.NumScore == 0:
		body = append(body,
			jen.Comment("No field lives in the score: Encode always writes 0."),
			jen.If(jen.Id("score").Op("!=").Lit(0).Op("||").Qual("math", "Signbit").Call(jen.Id("score"))).Block(failScore("not 0, the only score of this layout")))
	case l.Score == layout.ScoreDecimal:
		body = append(body,
			jen.List(jen.Id("p"), jen.Id("ok")).Op(":=").Id("pOf").Call(jen.Id("score")),
			jen.If(jen.Op("!").Id("ok")).Block(failScore(fmt.Sprintf("not P / 10^%d for a whole number P below %d", l.DecimalPlaces, l.ScoreRadix))))
		declared["ok"] = true
	default:
		body = append(body,
			jen.Comment("Every score this layout writes is a whole number in [0, scoreBound). The negated"),
			jen.Comment("comparison also refuses NaN; the sign bit refuses -0, which Encode never writes."),
			jen.If(jen.Qual("math", "Signbit").Call(jen.Id("score")).Op("||").
				Op("!").Parens(jen.Id("score").Op("<").Add(c.konst("scoreBound"))).Op("||").
				Id("score").Op("!=").Qual("math", "Trunc").Call(jen.Id("score"))).
				Block(failScore(fmt.Sprintf("not a whole number in [0, %d)", l.ScoreRadix))),
			jen.Id("p").Op(":=").Uint64().Call(jen.Id("score")))
	}

	for i, f := range l.ScoreFields() {
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
				jen.Id("d").Op(assign("d")).Add(d),
				jen.If(jen.Id("d").Op(">").Add(c.span(f))).Block(failScore(f.Name+" digit is outside its range")),
				jen.Id("e").Dot(f.Name).Op("=").Add(c.value(f, jen.Id("d"))))
		} else {
			body = append(body, jen.Id("e").Dot(f.Name).Op("=").Add(c.value(f, d)))
		}
	}

	rest := jen.Id("member")
	if l.HasPrefix() {
		shape := l.MemberPattern()
		cond := jen.Len(jen.Id("member")).Op("<").Add(c.konst("prefixLen"))
		for _, f := range l.MemberFields() {
			if l.Separator == "" {
				break
			}
			at := f.Offset + f.TextWidth
			cond.Op("||").Id("member").Index(jen.Lit(at), jen.Lit(at+len(l.Separator))).Op("!=").Add(c.konst("separator"))
		}
		body = append(body,
			jen.Comment(fmt.Sprintf("The member is %s.", shape)),
			jen.If(cond).Block(failMember("not of the form "+shape)))
		for _, f := range l.MemberFields() {
			parse, what := "ParseDec", "decimal"
			maxText := uint64(math.MaxUint64)
			if f.TextWidth < 20 {
				maxText = pow(10, f.TextWidth) - 1
			}
			if f.Hex {
				parse, what = "ParseHex", "lower-case hex"
				if f.TextWidth < 16 {
					maxText = 1<<(4*f.TextWidth) - 1
				}
			}
			bad := jen.Op("!").Id("ok")
			if f.Span() < maxText {
				bad = bad.Op("||").Id("d").Op(">").Add(c.span(f))
			}
			body = append(body,
				jen.List(jen.Id("d"), jen.Id("ok")).Op(assign("d", "ok")).Qual(runtimePath, parse).Call(jen.Id("member").Index(jen.Lit(f.Offset), jen.Lit(f.Offset+f.TextWidth))),
				jen.If(bad).Block(failMember(fmt.Sprintf("%s is not %d %s digits of its range", f.Name, f.TextWidth, what))),
				jen.Id("e").Dot(f.Name).Op("=").Add(c.value(f, jen.Id("d"))))
		}
		rest = jen.Id("member").Index(c.konst("prefixLen"), jen.Empty())
	}

	if l.IDType == layout.IDUint64 {
		body = append(body,
			jen.List(jen.Id("id"), jen.Id("ok")).Op(assign("id", "ok")).Qual(runtimePath, "ParseID").Call(rest),
			jen.If(jen.Op("!").Id("ok")).Block(failMember(l.IDName+" is not a uint64 in canonical decimal")),
			jen.Id("e").Dot(l.IDName).Op("=").Id("id"))
	} else {
		body = append(body,
			jen.Id("e").Dot(l.IDName).Op("=").Add(rest),
			jen.If(jen.Id("n").Op(":=").Len(jen.Id("e").Dot(l.IDName)), jen.Id("n").Op("==").Lit(0).Op("||").Id("n").Op(">").Add(c.idMaxBytes())).
				Block(failMember(fmt.Sprintf("%s is not 1 to %d bytes", l.IDName, l.MaxBytes))))
	}
	body = append(body, jen.Return(jen.Id("e"), jen.Nil()))

	doc := `Decode recovers the entry from a score and member read from Redis. A pair this layout cannot
have written gives a *rankgenrt.DecodeError (errors.Is rankgenrt.ErrBadScore or ErrBadMember);
Decode never panics, whatever its input.`
	return jen.Comment(lineComment(doc)).Line().
		Func().Id("Decode").Params(jen.Id("score").Float64(), jen.Id("member").String()).Params(jen.Id("e").Id("Entry"), jen.Id("err").Error()).
		Block(body...)
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

// ---- Compare ----

func (c *codec) compare() jen.Code {
	l := c.l
	var body []jen.Code
	for _, f := range l.Fields {
		a, b := jen.Id("a").Dot(f.Name), jen.Id("b").Dot(f.Name)
		if f.Order == layout.Desc {
			a, b = b, a // larger first
		}
		var cmpx jen.Code
		switch f.Kind {
		case layout.Bool:
			cmpx = jen.Qual(runtimePath, "CompareBool").Call(a, b)
		case layout.Time:
			_, method, _, _ := unitInfo(f.Unit)
			cmpx = jen.Qual("cmp", "Compare").Call(a.Dot(method).Call(), b.Dot(method).Call())
		default:
			cmpx = jen.Qual("cmp", "Compare").Call(a, b)
		}
		body = append(body, jen.If(jen.Id("c").Op(":=").Add(cmpx), jen.Id("c").Op("!=").Lit(0)).Block(jen.Return(jen.Id("c"))))
	}
	a, b := jen.Id("a").Dot(l.IDName), jen.Id("b").Dot(l.IDName)
	if l.IDType == layout.IDUint64 {
		body = append(body,
			jen.Comment("Equal fields: Redis compares the members' bytes, larger first, and with equal prefixes"),
			jen.Comment("that is the ids' decimal text (so 9 ranks before 10)."),
			jen.Return(jen.Qual(runtimePath, "CompareDecimal").Call(b, a)))
	} else {
		body = append(body,
			jen.Comment("Equal fields: Redis compares the members' bytes, larger first, and with equal prefixes"),
			jen.Comment("that is the ids' bytes."),
			jen.Return(jen.Qual("strings", "Compare").Call(b, a)))
	}
	doc := `Compare orders entries as Redis reads the board (ZREVRANGE): negative when a ranks before b,
positive when after, 0 when they are stored identically. Times compare at their unit, as stored.`
	return jen.Comment(lineComment(doc)).Line().
		Func().Id("Compare").Params(jen.List(jen.Id("a"), jen.Id("b")).Id("Entry")).Int().Block(body...)
}

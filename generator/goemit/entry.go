package goemit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/layout"
)

// entryType declares Entry: the id, then the fields, each with its range as its doc.
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
	if l.HasData() {
		fields = append(fields, jen.Line(), jen.Comment(lineComment("Data is the entry's data, stored and returned with it; it never ranks, and Encode and\nCompare ignore it (Set checks it with Data.Encode).")), jen.Id(layout.DataTypeName).Id(layout.DataTypeName))
		doc = "Entry is one entry of the board: the id, then the fields, most significant first, then its data."
	}
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
		if f.Season {
			fmt.Fprintf(&b, "%s from the start of the board's season, in whole %s (a finer offset is refused); %s.", f.Range(), words, order)
			break
		}
		fmt.Fprintf(&b, "%s, in whole %s (a finer time is refused); %s.", f.Range(), words, order)
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
	if c.isData(f) {
		doc = fmt.Sprintf("%s is the type of data field %s: %s.", name, name, strings.Join(f.Values, ", "))
	}
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

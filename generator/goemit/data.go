package goemit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/layout"
)

// Entry data (layout.Data): the Data type, its Encode and DecodeData, and the pieces of the
// board's methods that carry it. A layout without data fields emits none of it.

// dataTypes declares the data fields' enum types, then Data, Data.Encode and DecodeData.
func (c *codec) dataTypes(f *jen.File) {
	for _, fd := range c.l.Data {
		if fd.Kind == layout.Enum {
			f.Line()
			f.Add(c.enumType(fd))
		}
	}
	f.Line()
	f.Add(c.dataType())
	f.Line()
	f.Add(c.dataEncode())
	f.Line()
	f.Add(c.dataDecode())
}

// isData reports whether f is a data field.
func (c *codec) isData(f *layout.Field) bool {
	for _, d := range c.l.Data {
		if d == f {
			return true
		}
	}
	return false
}

// dataType declares Data, each field with its doc and what it accepts.
func (c *codec) dataType() jen.Code {
	var fields []jen.Code
	for i, f := range c.l.Data {
		if i > 0 {
			fields = append(fields, jen.Line())
		}
		fields = append(fields, jen.Comment(lineComment(dataFieldDoc(f))), jen.Id(f.Name).Add(goType(f)))
	}
	doc := `Data is an entry's data: values stored beside the entry (in one hash of the board's hash
slot) and returned with it by every read, which never take part in its order. Set writes it
with the entry, Best when its entry is stored, Remove and Trim delete it with the entry, and
field updates leave it as it is (an entry an update creates has the zero Data).`
	return jen.Comment(lineComment(doc)).Line().Type().Id(layout.DataTypeName).Struct(fields...)
}

// dataFieldDoc is the doc comment of a Data field: the schema's doc, then what it accepts.
func dataFieldDoc(f *layout.Field) string {
	var b strings.Builder
	if f.Doc != "" {
		b.WriteString(f.Doc + "\n")
	}
	switch f.Kind {
	case layout.String:
		fmt.Fprintf(&b, "At most %d bytes of UTF-8 text; a longer value, or one that is not valid UTF-8, is refused (ErrOutOfRange), never cut.", f.MaxBytes)
	case layout.Bool:
		b.WriteString("true or false.")
	case layout.Time:
		_, _, _, words := unitInfo(f.Unit)
		fmt.Fprintf(&b, "%s, in whole %s (a finer time is refused).", f.Range(), words)
	case layout.Enum:
		fmt.Fprintf(&b, "One of %s.", strings.Join(f.Values, ", "))
	default:
		fmt.Fprintf(&b, "%s.", f.Range())
	}
	return b.String()
}

// dataValue is data field f of Data.Encode's receiver: d.X.
func dataValue(f *layout.Field) value {
	return func() *jen.Statement { return jen.Id("d").Dot(f.Name) }
}

// dataEncode declares Data.Encode: every value checked, then each appended in schema order.
func (c *codec) dataEncode() jen.Code {
	fail := func(err jen.Code) jen.Code { return jen.Return(jen.Lit(""), err) }
	var checks, appends []jen.Code
	for _, f := range c.l.Data {
		v := dataValue(f)
		var put jen.Code
		switch f.Kind {
		case layout.String:
			checks = append(checks, jen.If(jen.Len(v()).Op(">").Add(c.fc(f, "MaxBytes"))).Block(
				fail(jen.Qual(runtimePath, "DataLengthError").Call(jen.Lit(f.Name), jen.Len(v()), c.fc(f, "MaxBytes")))),
				jen.If(jen.Err().Op(":=").Qual(runtimePath, "CheckDataText").Call(jen.Lit(f.Name), v()), jen.Err().Op("!=").Nil()).Block(fail(jen.Err())))
			put = jen.Qual(runtimePath, "AppendDataText").Call(jen.Id("b"), v())
		case layout.Bool:
			put = jen.Qual(runtimePath, "AppendDataBool").Call(jen.Id("b"), v())
		case layout.Int:
			checks = append(checks, c.check(f, v, fail)...)
			put = jen.Qual(runtimePath, "AppendDataInt").Call(jen.Id("b"), jen.Int64().Call(v()))
		case layout.Time:
			checks = append(checks, c.check(f, v, fail)...)
			put = jen.Qual(runtimePath, "AppendDataInt").Call(jen.Id("b"), jen.Id(c.timeLocal(f)))
		default: // uint, enum
			checks = append(checks, c.check(f, v, fail)...)
			put = jen.Qual(runtimePath, "AppendDataUint").Call(jen.Id("b"), jen.Uint64().Call(v()))
		}
		appends = append(appends, jen.Id("b").Op("=").Add(put))
	}
	body := append(checks, jen.Id("b").Op(":=").Make(jen.Index().Byte(), jen.Lit(0), jen.Lit(64)))
	body = append(body, appends...)
	body = append(body, jen.Return(jen.String().Call(jen.Id("b")), jen.Nil()))
	doc := `Encode writes d as a board stores it. A value outside its field's range, a string longer
than its max_bytes, or a string that is not valid UTF-8 (data strings hold text), is an error
matching ErrOutOfRange: it is refused, never cut, clamped or repaired.`
	return jen.Comment(lineComment(doc)).Line().
		Func().Params(jen.Id("d").Id(layout.DataTypeName)).Id("Encode").Params().Params(jen.String(), jen.Error()).Block(body...)
}

// dataDecode declares DecodeData: the stored texts split, each read and range-checked.
func (c *codec) dataDecode() jen.Code {
	zero := jen.Id(layout.DataTypeName).Values()
	fail := errNil().Block(jen.Return(zero, jen.Err()))
	body := []jen.Code{
		jen.If(jen.Id("s").Op("==").Lit("")).Block(jen.Return(jen.Id("d"), jen.Nil())),
		jen.List(jen.Id("texts"), jen.Err()).Op(":=").Qual(runtimePath, "DataTexts").Call(jen.Id("s"), c.konst("dataFields")),
		fail,
	}
	var u, i bool // whether the uint64 and int64 locals are used
	for k, f := range c.l.Data {
		text, name := jen.Id("texts").Index(jen.Lit(k)), jen.Lit(f.Name)
		if k > 0 { // data written before this field was appended: it reads as its zero
			body = append(body, jen.If(jen.Len(jen.Id("texts")).Op("==").Lit(k)).Block(jen.Return(jen.Id("d"), jen.Nil())))
		}
		switch f.Kind {
		case layout.String:
			body = append(body, jen.If(jen.List(jen.Id("d").Dot(f.Name), jen.Err()).Op("=").Qual(runtimePath, "DataString").Call(text, name, c.fc(f, "MaxBytes")), jen.Err().Op("!=").Nil()).Block(jen.Return(zero, jen.Err())))
		case layout.Int, layout.Time:
			i = true
			body = append(body, jen.If(jen.List(jen.Id("i"), jen.Err()).Op("=").Qual(runtimePath, "DataInt").Call(text, name, c.fc(f, "Min"), c.fc(f, "Max")), jen.Err().Op("!=").Nil()).Block(jen.Return(zero, jen.Err())),
				jen.Id("d").Dot(f.Name).Op("=").Add(c.fromInt(f)))
		default:
			u = true
			lo, hi := c.uintBounds(f)
			body = append(body, jen.If(jen.List(jen.Id("u"), jen.Err()).Op("=").Qual(runtimePath, "DataUint").Call(text, name, lo, hi), jen.Err().Op("!=").Nil()).Block(jen.Return(zero, jen.Err())),
				jen.Id("d").Dot(f.Name).Op("=").Add(fromUint(f)))
		}
	}
	var locals []jen.Code
	if u {
		locals = append(locals, jen.Var().Id("u").Uint64())
	}
	if i {
		locals = append(locals, jen.Var().Id("i").Int64())
	}
	body = append(append(body[:3:3], locals...), body[3:]...)
	body = append(body, jen.Return(jen.Id("d"), jen.Nil()))
	doc := `DecodeData reads data as a board stores it; "" (an entry written without data, or by a field
update) is the zero Data. Data written before a field was appended reads that field as its
zero; data written by a schema that appended fields since keeps them in the board, and DecodeData
leaves them out. Data this layout cannot have written is an error matching
rankgenrt.ErrBadData, except a string that is not valid UTF-8 (which Encode refuses): written by
other code, it is read as it is. DecodeData never panics, whatever its input.`
	return jen.Comment(lineComment(doc)).Line().
		Func().Id("DecodeData").Params(jen.Id("s").String()).Params(jen.Id("d").Id(layout.DataTypeName), jen.Err().Error()).Block(body...)
}

// uintBounds are the bounds DecodeData checks an unsigned data value against.
func (c *codec) uintBounds(f *layout.Field) (lo, hi jen.Code) {
	switch f.Kind {
	case layout.Bool:
		return jen.Lit(0), jen.Lit(1)
	case layout.Enum:
		return jen.Lit(0), jen.Uint64().Call(jen.Id(enumLast(f)))
	}
	return c.fc(f, "Min"), c.fc(f, "Max")
}

// fromUint converts DecodeData's u to the Go type of f.
func fromUint(f *layout.Field) jen.Code {
	switch {
	case f.Kind == layout.Bool:
		return jen.Id("u").Op("==").Lit(1)
	case f.GoType == "uint64":
		return jen.Id("u")
	}
	return jen.Id(f.GoType).Call(jen.Id("u"))
}

// fromInt converts DecodeData's i to the Go type of f: an int type, or the time of i units.
func (c *codec) fromInt(f *layout.Field) jen.Code {
	if f.Kind == layout.Time {
		_, method, _, _ := unitInfo(f.Unit)
		return jen.Qual("time", method).Call(jen.Id("i")).Dot("UTC").Call()
	}
	if f.GoType == "int64" {
		return jen.Id("i")
	}
	return jen.Id(f.GoType).Call(jen.Id("i"))
}

// dataConstants are the data fields' constants the emitted code uses.
func (c *codec) dataConstants(add func(name string, value jen.Code, comment string)) {
	if !c.l.HasData() {
		return
	}
	add("dataFields", jen.Lit(len(c.l.Data)), "values in an entry's stored data")
	for _, f := range c.l.Data {
		n := c.bases[f]
		if f.Kind == layout.String {
			add(n+"MaxBytes", jen.Lit(f.MaxBytes), fmt.Sprintf("the longest %s accepted", f.Name))
			continue
		}
		c.rangeConstants(f, add)
	}
}

// ---- the board ----

// encodeData declares data, e's encoded Data, in a loop over entries; an invalid one returns
// ret..., err. Nothing without data fields.
func (b *board) encodeData(ret ...jen.Code) jen.Code {
	if !b.l.HasData() {
		return jen.Null()
	}
	return jen.List(jen.Id("data"), jen.Err()).Op(":=").Id("e").Dot("Data").Dot("Encode").Call().Line().
		If(jen.Err().Op("!=").Nil()).Block(jen.Return(append(ret, jen.Err())...))
}

// dataArg is the data argument that follows an entry's score and member, if any.
func (b *board) dataArg() []jen.Code {
	if !b.l.HasData() {
		return nil
	}
	return []jen.Code{jen.Id("data")}
}

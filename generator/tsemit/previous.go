package tsemit

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// PreviousFile is the TypeScript module of the layout l replaces (previous:), which l's module
// imports: <stem>.previous.rankgen.ts.
func PreviousFile(l *layout.Layout) string { return l.Stem() + ".previous.rankgen.ts" }

// previousView is what the module of a layout that replaces another needs to read and write a
// board in that layout, as the Go package does: the other module, and how entries, their data
// and field updates convert between the two.
type previousView struct {
	Module, Schema string
	// FromPrevious: for each field of this layout, the previous field its value comes from
	// (From "": its default); ToPrevious: for each field of the previous layout, this layout's
	// field it comes from (From "": dropped, the previous field's zero); Defaulted: this
	// layout's fields the previous lacks, with the value an entry must hold there.
	FromPrevious, ToPrevious, Defaulted             []conversion
	DataFromPrevious, DataToPrevious, DataDefaulted []conversion
	ZeroFields, ZeroData                            []conversion // the previous layout's zero entry and data
}

// conversion is one field's value taken from another layout's: the field (To), the field it
// comes from (From), how its value converts (Conv: a tuple convert reads) and a value (Value:
// the default, or the zero).
type conversion struct {
	To, From, Conv, Value string
}

// updateRoute is how a field update runs on a board in the previous layout: the previous
// layout's method ("": none gives the same result), how its value converts, and for an add
// whether each edge of the range is shared (an overflow there is this layout's own).
type updateRoute struct {
	Method, Conv          string
	LowShared, HighShared bool
}

// newPrevious fills v's previous view from l.Previous, and each update's route.
func newPrevious(v *view, l *layout.Layout) {
	pr := l.Previous
	if pr == nil || pr.Layout == nil || !pr.TimesAlike(l) {
		return
	}
	old := pr.Layout
	oldEntry, oldData := Props(old)
	newEntry, newData := Props(l)
	pv := &previousView{Module: "./" + l.Stem() + ".previous.rankgen", Schema: pr.Schema}
	pv.FromPrevious, pv.ToPrevious, pv.Defaulted = conversions(l.Fields, newEntry, old.Fields, oldEntry, pr.Fields, pr.PreviousFields, pr.DefaultKeys, pr.Defaults)
	pv.DataFromPrevious, pv.DataToPrevious, pv.DataDefaulted = conversions(l.Data, newData, old.Data, oldData, pr.Data, pr.PreviousData, pr.DefaultDataKeys, pr.Defaults)
	for _, f := range old.Fields {
		pv.ZeroFields = append(pv.ZeroFields, conversion{To: oldEntry[f.Name], Value: tsZero(f)})
	}
	for _, f := range old.Data {
		pv.ZeroData = append(pv.ZeroData, conversion{To: oldData[f.Name], Value: tsZero(f)})
	}
	for i := range v.Updates {
		u := &v.Updates[i]
		f := l.Fields[u.Field]
		of, ok := pr.UpdateRoutes(l, f, layout.Op(u.Kind))
		var prevOp catalog.Op // the previous layout's own update, named as it names the field
		if ok {
			prevOp, ok = catalog.UpdateOf(old, of, layout.Op(u.Kind), false)
		}
		u.Previous = &updateRoute{}
		if !ok {
			continue
		}
		u.Previous.Method = PropName(prevOp.Methods[0])
		u.Previous.Conv, u.Previous.LowShared, u.Previous.HighShared = convOf(f, of), of.Lo == f.Lo, of.Hi == f.Hi
	}
	v.Previous = pv
}

// tsZero is the TypeScript literal of field f's zero value, the Go zero value's, which an
// entry this code converts holds in a field the previous layout keeps and this one dropped.
func tsZero(f *layout.Field) string {
	switch f.Kind {
	case layout.Time:
		n, _ := layout.TimeUnits(time.Time{}, f.Unit)
		return tsValue(f, layout.IntKey(n), "")
	case layout.Int:
		return tsValue(f, layout.IntKey(0), "")
	}
	return tsValue(f, 0, "")
}

// conversions are the three tables of one kind of field (ranking or data) between a layout
// and its previous one, by the previous schema's mapping: from[i] the previous field of field
// i (or -1), to[j] the field of previous field j (or -1), defaults[i] the key of field i
// without a previous one (text: the schema's, by name); props name each layout's fields.
func conversions(fields []*layout.Field, props map[string]string, old []*layout.Field, oldProps map[string]string, from, to []int, defaults []uint64, text map[string]string) (fromPrevious, toPrevious, defaulted []conversion) {
	for i, f := range fields {
		c := conversion{To: props[f.Name]}
		if j := from[i]; j >= 0 {
			c.From, c.Conv = oldProps[old[j].Name], convOf(old[j], f)
		} else {
			c.Value = tsValue(f, defaults[i], text[f.Name])
			defaulted = append(defaulted, c)
		}
		fromPrevious = append(fromPrevious, c)
	}
	for j, of := range old {
		c := conversion{To: oldProps[of.Name]}
		if i := to[j]; i >= 0 {
			c.From, c.Conv = props[fields[i].Name], convOf(fields[i], of)
		}
		toPrevious = append(toPrevious, c)
	}
	return fromPrevious, toPrevious, defaulted
}

// convOf is how a value of field from becomes one of field to, as a tuple convert reads: its
// way ("same", "bool": a number that must be 0 or 1, "int": a boolean as 0 or 1, "scale": a
// time times n divided by d, leaving no remainder), n, d, and the type to holds ("number",
// "bigint", "boolean", or "as-is" for a value of another kind, which converts as it is).
func convOf(from, to *layout.Field) string {
	numeric := to.Kind == layout.Uint || to.Kind == layout.Int || to.Kind == layout.Time || to.Kind == layout.Bool
	if !numeric {
		return `["same", 1, 1, "as-is"]`
	}
	c := layout.ConversionOf(from, to)
	how := map[layout.ConversionKind]string{layout.Same: "same", layout.ToBool: "bool", layout.FromBool: "int", layout.Scale: "scale"}[c.How]
	target := "number"
	if fv, _ := newField(to); fv.Big {
		target = "bigint"
	} else if to.Kind == layout.Bool {
		target = "boolean"
	}
	return fmt.Sprintf(`[%q, %d, %d, %q]`, how, c.N, c.D, target)
}

// tsValue is the TypeScript literal of field f's value whose key is key (a string's: text).
func tsValue(f *layout.Field, key uint64, text string) string {
	big := ""
	if fv, _ := newField(f); fv.Big {
		big = "n"
	}
	switch f.Kind {
	case layout.Uint:
		return strconv.FormatUint(key, 10) + big
	case layout.Int, layout.Time:
		return strconv.FormatInt(layout.IntOf(key), 10) + big
	case layout.Bool:
		return strconv.FormatBool(key == 1)
	case layout.Enum:
		return jsText(f.Values[key])
	case layout.String:
		return jsText(text)
	}
	return "undefined"
}

// jsText is s as a JavaScript string literal.
func jsText(s string) string {
	out, _ := jsString(s) // encoding a Go string as JSON cannot fail
	return out
}

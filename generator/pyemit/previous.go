package pyemit

import (
	"fmt"
	"strconv"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// PreviousFile is the Python module's file name of the layout l replaces (previous:), which
// l's module imports: <stem>_previous_rankgen.py.
func PreviousFile(l *layout.Layout) string {
	return PreviousModule(l) + ".py"
}

// PreviousModule is the name the module of l's previous layout imports as.
func PreviousModule(l *layout.Layout) string {
	f := File(l)
	return f[:len(f)-len("_rankgen.py")] + "_previous_rankgen"
}

// previousView is what the module of a layout that replaces another needs to read and write a
// board in that layout, as the Go package does: the other module, and how entries, data and
// field updates convert between the two.
type previousView struct {
	Module, Schema, Fingerprint string
	// FromPrevious: for each field of this layout, the previous field its value comes from
	// (Attr "" : its default); ToPrevious: for each field of the previous layout, this
	// layout's field it comes from (Attr "": dropped, the previous field's zero); Defaulted:
	// this layout's fields the previous lacks, with the value an entry must hold there.
	FromPrevious, ToPrevious, Defaulted             []conversion
	DataFromPrevious, DataToPrevious, DataDefaulted []conversion
}

// conversion is one field's value taken from another layout's: the field (To), the field it
// comes from (From: "" for none), how its value converts (Conv: a Python tuple _convert reads),
// and the value it takes without a source (Default).
type conversion struct {
	To, From, Conv, Default string
}

// updateRoute is how a field update of this layout runs on a board in the previous layout: the
// previous layout's method ("": it has none that gives the same result) and, for an add,
// whether each edge of the range is shared (an overflow there is this layout's own).
type updateRoute struct {
	Method                string
	Conv                  string
	LowShared, HighShared bool
}

// newPrevious fills v's previous view from l.Previous, and each update's route.
func newPrevious(v *view, l *layout.Layout) error {
	pr := l.Previous
	if pr == nil || pr.Layout == nil || !pr.TimesAlike(l) {
		return nil
	}
	old := pr.Layout
	pv := &previousView{Module: PreviousModule(l), Schema: pr.Schema, Fingerprint: old.Fingerprint}
	oldFields, err := fieldViews(old.Fields)
	if err != nil {
		return err
	}
	oldData, err := fieldViews(old.Data)
	if err != nil {
		return err
	}
	pv.FromPrevious, pv.ToPrevious, pv.Defaulted = conversions(l.Fields, v.Fields, old.Fields, oldFields, pr.Fields, pr.PreviousFields, pr.DefaultKeys, pr.Defaults)
	pv.DataFromPrevious, pv.DataToPrevious, pv.DataDefaulted = conversions(l.Data, v.Data, old.Data, oldData, pr.Data, pr.PreviousData, pr.DefaultDataKeys, pr.Defaults)
	for _, u := range v.Updates {
		f := l.Fields[u.FieldIndex]
		of, ok := pr.UpdateRoutes(l, f, layout.Op(u.Kind))
		var prevOp catalog.Op // the previous layout's own update, named as it names the field
		if ok {
			prevOp, ok = catalog.UpdateOf(old, of, layout.Op(u.Kind), false)
		}
		if !ok {
			u.Previous = &updateRoute{}
			continue
		}
		u.Previous = &updateRoute{Method: snake(prevOp.Methods[0]), Conv: convOf(f, of), LowShared: of.Lo == f.Lo, HighShared: of.Hi == f.Hi}
	}
	v.Previous = pv
	return nil
}

// fieldViews are the views of fields, with their Python attributes.
func fieldViews(fields []*layout.Field) ([]*fieldView, error) {
	taken := map[string]string{}
	var out []*fieldView
	for _, f := range fields {
		fv, err := newField(f, taken)
		if err != nil {
			return nil, err
		}
		out = append(out, fv)
	}
	return out, nil
}

// conversions are the three tables of one kind of field (ranking or data) between a layout
// (fields, views) and its previous one (old, oldViews), by the previous schema's mapping:
// from[i] the previous field of field i (or -1), to[j] the field of previous field j (or -1),
// defaults[i] the key of field i without a previous one (text: the schema's, by name).
func conversions(fields []*layout.Field, views []*fieldView, old []*layout.Field, oldViews []*fieldView, from, to []int, defaults []uint64, text map[string]string) (fromPrevious, toPrevious, defaulted []conversion) {
	for i, f := range fields {
		c := conversion{To: views[i].Attr}
		if j := from[i]; j >= 0 {
			c.From, c.Conv = oldViews[j].Attr, convOf(old[j], f)
		} else {
			c.Default = pyValue(f, defaults[i], text[f.Name])
			defaulted = append(defaulted, c)
		}
		fromPrevious = append(fromPrevious, c)
	}
	for j, of := range old {
		c := conversion{To: oldViews[j].Attr}
		if i := to[j]; i >= 0 {
			c.From, c.Conv = views[i].Attr, convOf(fields[i], of)
		}
		toPrevious = append(toPrevious, c)
	}
	return fromPrevious, toPrevious, defaulted
}

// convOf is how a value of field from becomes one of field to, as a tuple _convert reads:
// ("same",), ("bool",) (a number that must be 0 or 1), ("int",) (a bool as 0 or 1), or
// ("scale", n, d) (a time: times n, divided by d, which must leave no remainder).
func convOf(from, to *layout.Field) string {
	c := layout.ConversionOf(from, to)
	switch c.How {
	case layout.Scale:
		return fmt.Sprintf(`("scale", %d, %d)`, c.N, c.D)
	case layout.ToBool:
		return `("bool",)`
	case layout.FromBool:
		return `("int",)`
	}
	return `("same",)`
}

// pyValue is the Python literal of field f's value whose key is key (a string's: text).
func pyValue(f *layout.Field, key uint64, text string) string {
	switch f.Kind {
	case layout.Uint:
		return strconv.FormatUint(key, 10)
	case layout.Int, layout.Time:
		return strconv.FormatInt(layout.IntOf(key), 10)
	case layout.Bool:
		if key == 1 {
			return "True"
		}
		return "False"
	case layout.Enum:
		return pyString(f.Values[key])
	case layout.String:
		return pyString(text)
	}
	return "None"
}

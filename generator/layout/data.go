package layout

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/rankgen/rankgen/text/quote"
	"github.com/rankgen/rankgen/text/suggest"
)

// Entry data: typed values stored beside an entry (a display name, a car) and returned with
// it, which never take part in its order. Data fields use the field vocabulary (type, bits,
// digits, min, max, epoch, unit, values, doc) and add type string with max_bytes; the keys
// that only ranking has (order, in, update, overflow, stamp) are refused.

// MaxDataBytes bounds a data string's max_bytes: data is read with every entry of a page, so a
// value stays small.
const MaxDataBytes = 1 << 20

// DataTypeName is the generated Go type that holds an entry's data.
const DataTypeName = "Data"

// DataChangeName is the generated change constructor that replaces an entry's data in a change
// list.
const DataChangeName = "SetData"

var (
	dataFieldKeys = []string{"name", "type", "max_bytes", "bits", "digits", "min", "max", "epoch", "unit",
		"values", "doc", "order", "in", "update", "overflow", "stamp"}
	dataKindNames = []string{"string", "uint", "int", "bool", "enum", "time"}
)

// HasData reports whether the layout declares data fields.
func (l *Layout) HasData() bool { return len(l.Data) > 0 }

// dataLayout validates the data fields into l.Data, then their stored-format fingerprint.
func (v *validator) dataLayout(raw *rawSchema, l *Layout, names map[string]scalar) {
	if raw.DataPos.Set && !raw.DataPos.Bad && len(raw.Data) == 0 {
		v.errAt(raw.DataPos, "data is empty; list data fields under it (\"- name: Nick\" with type: string and max_bytes) or remove it")
	}
	for i := range raw.Data {
		if f := v.dataField(&raw.Data[i], names); f != nil {
			l.Data = append(l.Data, f)
		}
	}
	if len(raw.Data) == 0 {
		return
	}
	if s, clash := names[DataTypeName]; clash {
		v.errAt(s, "name %q is the generated type of the entry data; rename it (e.g. %q)", DataTypeName, DataTypeName+"Value")
	}
	if s, clash := names[DataChangeName]; clash {
		v.errAt(s, "name %q is the generated change that sets the entry data; rename it (e.g. %q)", DataChangeName, DataChangeName+"Value")
	}
}

// dataField checks one data field: its name (unique among all names), its type, and for every
// type but string the width and range rules of fields.
func (v *validator) dataField(raw *rawField, names map[string]scalar) *Field {
	if raw.Bad {
		return nil
	}
	f := v.namedField(raw, names)
	label := "data field " + quote.Short(f.Name)
	v.rankOnlyKeys(raw, label)
	if raw.Type.Value == "string" {
		return v.stringData(raw, f, label)
	}
	if _, ok := kindsByName[raw.Type.Value]; !ok {
		v.dataKindError(raw, label)
		return nil
	}
	if raw.MaxBytes.Set {
		v.errAt(raw.MaxBytes, "%s: max_bytes applies to string data only; remove it", label)
	}
	f.Kind = kindsByName[raw.Type.Value]
	if !v.fieldValues(raw, f, label, raw.MaxBytes) {
		return nil
	}
	return f
}

// rankOnlyKeys refuses the keys that say how a field ranks: data never ranks.
func (v *validator) rankOnlyKeys(raw *rawField, label string) {
	for _, k := range []struct {
		s   scalar
		key string
	}{{raw.Order, "order"}, {raw.In, "in"}, {raw.Overflow, "overflow"}, {raw.Stamp, "stamp"}, {raw.UpdatePos, "update"}} {
		if k.s.Set {
			v.errAt(k.s, "%s: %s does not apply to data, which never ranks and is written whole by Set and Best; remove it (or move the field under fields: to rank by it)", label, k.key)
		}
	}
}

// dataKindError reports a missing or unknown type of a data field.
func (v *validator) dataKindError(raw *rawField, label string) {
	switch {
	case raw.Type.Value == "" && raw.Type.Bad:
	case raw.Type.Value == "":
		at := raw.Type
		if !at.Set {
			at = scalar{Line: raw.Line, Col: raw.Col}
		}
		v.errAt(at, "%s has no type; add \"type:\" with one of %s", label, strings.Join(dataKindNames, ", "))
	default:
		msg := fmt.Sprintf("%s has unknown type %s; use one of %s", label, quote.Short(raw.Type.Value), strings.Join(dataKindNames, ", "))
		if s := suggest.Closest(raw.Type.Value, dataKindNames); s != "" {
			msg = fmt.Sprintf("%s has unknown type %s; did you mean %q?", label, quote.Short(raw.Type.Value), s)
		}
		v.errAt(raw.Type, "%s", msg)
	}
}

// stringData checks a string data field: max_bytes is required, and the width and range keys
// do not apply.
func (v *validator) stringData(raw *rawField, f *Field, label string) *Field {
	f.Kind, f.GoType = String, "string"
	for _, k := range []struct {
		s   scalar
		key string
	}{{raw.Bits, "bits"}, {raw.Digits, "digits"}, {raw.Min, "min"}, {raw.Max, "max"}, {raw.Epoch, "epoch"}, {raw.Unit, "unit"}, {raw.ValuesPos, "values"}} {
		if k.s.Set {
			v.errAt(k.s, "%s: %s does not apply to a string; remove it (max_bytes bounds a string)", label, k.key)
		}
	}
	switch {
	case raw.MaxBytes.Bad:
		return nil
	case !raw.MaxBytes.Set:
		v.errorf(raw.Line, raw.Col, "%s: a string needs max_bytes: N, the longest value accepted (longer ones are refused, never cut)", label)
		return nil
	}
	n, err := strconv.Atoi(raw.MaxBytes.Value)
	if err != nil || n < 1 || n > MaxDataBytes {
		v.errAt(raw.MaxBytes, "%s: max_bytes must be a whole number from 1 to %d, not %q", label, MaxDataBytes, raw.MaxBytes.Value)
		return nil
	}
	f.MaxBytes = n
	return f
}

// dataCanonical is the text of the data fields' stored format: their kinds, ranges and order
// (values are stored by position), not their names.
func dataCanonical(l *Layout) string { return dataCanonicalOf(l.Data) }

// dataChain is the fingerprints of the stored formats of the first 1, 2, … n data fields: the
// last is DataFingerprint. A format whose fingerprint is in another's chain is its prefix, so
// that code of either reads and writes data of the other (fields appended since read as zero).
func dataChain(l *Layout) []string {
	chain := make([]string, len(l.Data))
	for i := range l.Data {
		chain[i] = fingerprint(dataCanonicalOf(l.Data[:i+1]))
	}
	return chain
}

// dataCanonicalOf is dataCanonical of the data fields data.
func dataCanonicalOf(data []*Field) string {
	if len(data) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("data 1\n")
	for _, f := range data {
		if f.Kind == String {
			fmt.Fprintf(&b, "data string max_bytes=%d\n", f.MaxBytes)
			continue
		}
		fmt.Fprintf(&b, "data %s min=%s max=%s", f.Kind, f.Format(f.Lo), f.Format(f.Hi))
		if f.Kind == Time {
			fmt.Fprintf(&b, " unit=%s", f.Unit)
		}
		if f.Kind == Enum {
			fmt.Fprintf(&b, " values=%s", strings.Join(f.Values, ","))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// DataRange describes a data field's values in words, for tables and docs.
func (f *Field) DataRange() string {
	switch f.Kind {
	case String:
		return fmt.Sprintf("at most %d bytes", f.MaxBytes)
	case Enum:
		return strings.Join(f.Values, ", ")
	}
	return f.Range()
}

// DataValue is one data field's value as the interpreted codec sees it: Text for a string,
// else Key, as Field keys are (the value for uint, bool and enum; the int64 with its sign bit
// flipped for int, and for time in units since the Unix epoch).
type DataValue struct {
	Key  uint64
	Text string
}

// MaxStoredDataBytes is the longest data value a board of this layout stores for an id (its
// data hash's value): each field's length, ':' and text, a string at its max_bytes and a
// number at the 20 characters of the widest int64 or uint64; 0 without data fields.
func (l *Layout) MaxStoredDataBytes() int {
	n := 0
	for _, f := range l.Data {
		text := len("18446744073709551615")
		if f.Kind == String {
			text = f.MaxBytes
		}
		n += len(strconv.Itoa(text)) + 1 + text
	}
	return n
}

// ZeroData is the data of an entry that has none (one a field update created): each field's
// Go zero value, which the generated DecodeData returns for it.
func (l *Layout) ZeroData() []DataValue {
	vals := make([]DataValue, len(l.Data))
	for i, f := range l.Data {
		switch f.Kind {
		case Int:
			vals[i].Key = IntKey(0)
		case Time:
			n, _ := TimeUnits(time.Time{}, f.Unit)
			vals[i].Key = IntKey(n)
		}
	}
	return vals
}

// EncodeData writes data values as a board stores them (see package runtime: each value's
// length, ':' and its text). A value out of its field's range, a string over its max_bytes, or
// a string that is not valid UTF-8 is an error matching ErrOutOfRange.
func (l *Layout) EncodeData(vals []DataValue) (string, error) {
	if len(vals) != len(l.Data) {
		return "", fmt.Errorf("layout: %d data values for %d data fields", len(vals), len(l.Data))
	}
	var b []byte
	for i, f := range l.Data {
		v := vals[i]
		switch {
		case f.Kind == String && len(v.Text) > f.MaxBytes:
			return "", rankgenrt.DataLengthError(f.Name, len(v.Text), f.MaxBytes)
		case f.Kind == String && rankgenrt.CheckDataText(f.Name, v.Text) != nil:
			return "", rankgenrt.CheckDataText(f.Name, v.Text)
		case f.Kind == String:
			b = rankgenrt.AppendDataText(b, v.Text)
		case f.Kind == Time && (v.Key < f.Lo || v.Key > f.Hi):
			return "", rankgenrt.TimeRangeError(f.Name, f.TimeOf(v.Key), f.Format(f.Lo), f.Format(f.Hi))
		case f.Check(v.Key) != nil:
			return "", f.Check(v.Key)
		case f.Signed():
			b = rankgenrt.AppendDataInt(b, IntOf(v.Key))
		default:
			b = rankgenrt.AppendDataUint(b, v.Key)
		}
	}
	return string(b), nil
}

// DecodeData reads data as a board stores it; "" is ZeroData. Fields appended since the data
// was written read as their zero, fields appended by a newer schema are left out. Data this layout cannot have
// written is an error matching ErrBadData, except a string that is not valid UTF-8 (which
// EncodeData refuses): written by other code, it is read as it is, never left unreadable.
func (l *Layout) DecodeData(s string) ([]DataValue, error) {
	if s == "" {
		return l.ZeroData(), nil
	}
	texts, err := rankgenrt.DataTexts(s, len(l.Data))
	if err != nil {
		return nil, err
	}
	vals := l.ZeroData() // fields appended since the data was written read as their zero
	for i, f := range l.Data[:len(texts)] {
		switch {
		case f.Kind == String:
			vals[i].Text, err = rankgenrt.DataString(texts[i], f.Name, f.MaxBytes)
		case f.Signed():
			var n int64
			n, err = rankgenrt.DataInt(texts[i], f.Name, IntOf(f.Lo), IntOf(f.Hi))
			vals[i].Key = IntKey(n)
		default:
			vals[i].Key, err = rankgenrt.DataUint(texts[i], f.Name, f.Lo, f.Hi)
		}
		if err != nil {
			return nil, err
		}
	}
	return vals, nil
}

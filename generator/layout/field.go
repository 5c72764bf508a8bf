package layout

import (
	"fmt"
	"math/big"
	"strconv"

	"github.com/rankgen/rankgen/text/quote"
	"github.com/rankgen/rankgen/text/suggest"
)

// namedField starts the *Field of raw with its position, doc and name (checked unique among
// names); a field whose name is wrong is recorded as misnamed, so later name checks skip it.
func (v *validator) namedField(raw *rawField, names map[string]scalar) *Field {
	f := &Field{Line: raw.Line, Col: raw.Col, Doc: v.doc(raw.Doc)}
	if !v.fieldName(raw, f, names) {
		if v.misnamed == nil {
			v.misnamed = map[*Field]bool{}
		}
		v.misnamed[f] = true
	}
	return f
}

// Field rules: one schema field becomes a *Field with its kind, order, radix and range, or
// nil with the problems reported. Each step reports its own errors; the steps after the keys
// need every earlier one to have succeeded, as the range cannot be worked out otherwise.
func (v *validator) field(raw *rawField, names map[string]scalar) *Field {
	if raw.Bad {
		return nil
	}
	f := v.namedField(raw, names)
	label := "field " + quote.Short(f.Name)
	if !v.fieldKind(raw, f, label) {
		return nil
	}
	v.fieldOrder(raw, f, label) // the name and order do not decide the range: go on after theirs
	if !v.fieldValues(raw, f, label) {
		return nil
	}
	v.updates(raw, f, label)
	return f
}

// fieldValues works out what values a field of a known kind holds — its keys, radix and range,
// then its Go type — for ranking and data fields alike; false when a step reported a problem
// (or a key was already bad: extra are the keys only the caller reads).
func (v *validator) fieldValues(raw *rawField, f *Field, label string, extra ...scalar) bool {
	before := len(v.diags)
	v.fieldKeys(raw, f, label)
	if len(v.diags) > before || anyBad(append([]scalar{raw.Bits, raw.Digits, raw.Min, raw.Max, raw.Epoch, raw.Unit, raw.ValuesPos}, extra...)...) {
		return false
	}
	radix, ok := v.fieldRadix(raw, f, label)
	if !ok {
		return false
	}
	lo, hi, ok := v.fieldRange(raw, f, label, radix)
	if !ok || !v.fieldFits(raw, f, label, lo, hi, radix) {
		return false
	}
	f.GoType = goType(f, lo, hi)
	return true
}

// fieldName checks the field's Go name and claims it in names; false when it is refused.
func (v *validator) fieldName(raw *rawField, f *Field, names map[string]scalar) bool {
	f.Name = raw.Name.Value
	switch {
	case raw.Name.Bad: // already reported
	case !raw.Name.Set:
		v.errorf(raw.Line, raw.Col, "field has no name; add \"name: Points\" (its Go field name)")
	case !v.goName(raw.Name, "field name"):
	default:
		if prev, dup := names[raw.Name.Value]; dup {
			v.errAt(raw.Name, "name %q is already used at line %d; names must be unique: rename one", raw.Name.Value, prev.Line)
			return false
		}
		names[raw.Name.Value] = raw.Name
		return true
	}
	return false
}

var kindsByName = map[string]Kind{"uint": Uint, "int": Int, "bool": Bool, "enum": Enum, "time": Time}

// fieldKind reads the type; without one nothing else about the field can be checked.
func (v *validator) fieldKind(raw *rawField, f *Field, label string) bool {
	if k, ok := kindsByName[raw.Type.Value]; ok {
		f.Kind = k
		return true
	}
	switch {
	case raw.Type.Value == "" && raw.Type.Bad:
	case raw.Type.Value == "":
		at := raw.Type
		if !at.Set {
			at = scalar{Line: raw.Line, Col: raw.Col}
		}
		v.errAt(at, "%s has no type; add \"type:\" with one of uint, int, bool, enum, time", label)
	case raw.Type.Value == "string":
		v.errAt(raw.Type, "%s: a string cannot rank; move it under data: (entry data, stored and returned with the entry, with max_bytes)", label)
	default:
		msg := fmt.Sprintf("%s has unknown type %s; use one of uint, int, bool, enum, time", label, quote.Short(raw.Type.Value))
		if s := suggest.Closest(raw.Type.Value, kindNames); s != "" {
			msg = fmt.Sprintf("%s has unknown type %s; did you mean %q?", label, quote.Short(raw.Type.Value), s)
		}
		v.errAt(raw.Type, "%s", msg)
	}
	return false
}

// fieldOrder reads order (required) and checks in (read by place).
func (v *validator) fieldOrder(raw *rawField, f *Field, label string) {
	switch raw.Order.Value {
	case "desc":
	case "asc":
		f.Order = Asc
	case "":
		if !raw.Order.Bad {
			v.errorf(raw.Line, raw.Col, "%s has no order; add \"order: desc\" (higher ranks first) or \"order: asc\" (lower ranks first)", label)
		}
	default:
		v.errAt(raw.Order, "%s: order must be desc (higher ranks first) or asc (lower ranks first), not %q", label, raw.Order.Value)
	}
	switch raw.In.Value {
	case "", "score", "member":
	default:
		v.errAt(raw.In, "%s: in must be score or member, not %q", label, raw.In.Value)
	}
}

// fieldKeys refuses keys that do not apply to the field's kind, and two widths at once.
func (v *validator) fieldKeys(raw *rawField, f *Field, label string) {
	only := func(s scalar, key string, kinds ...Kind) {
		if s.Set && !containsKind(kinds, f.Kind) {
			v.errAt(s, "%s: %s does not apply to %s field; remove it", label, key, aKind(f.Kind))
		}
	}
	only(raw.Epoch, "epoch", Time)
	only(raw.Unit, "unit", Time)
	only(raw.Stamp, "stamp", Time)
	only(raw.Min, "min", Uint, Int, Time)
	only(raw.Max, "max", Uint, Int, Time)
	only(raw.ValuesPos, "values", Enum)
	only(raw.Bits, "bits", Uint, Int, Bool, Enum, Time)
	only(raw.Digits, "digits", Uint, Int, Bool, Enum, Time)
	if raw.Bits.Set && raw.Digits.Set {
		v.errAt(raw.Digits, "%s has both bits and digits; give one width: bits: n (radix 2^n) or digits: n (radix 10^n)", label)
	}
}

// anyBad reports whether a key was given but unusable (and so already reported).
func anyBad(ss ...scalar) bool {
	for _, s := range ss {
		if s.Bad {
			return true
		}
	}
	return false
}

// fieldRadix reads bits or digits; a nil radix means neither was given, and the radix follows
// from the range.
func (v *validator) fieldRadix(raw *rawField, f *Field, label string) (*big.Int, bool) {
	switch {
	case raw.Bits.Set:
		n, ok := v.width(raw.Bits, label, "bits", MaxBits)
		if !ok {
			return nil, false
		}
		f.RadixKind, f.Width = RadixBits, n
		return new(big.Int).Lsh(big.NewInt(1), uint(n)), true
	case raw.Digits.Set:
		n, ok := v.width(raw.Digits, label, "digits", MaxDigits)
		if !ok {
			return nil, false
		}
		f.RadixKind, f.Width = RadixDigits, n
		return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil), true
	}
	f.RadixKind = RadixRange
	return nil, true
}

// fieldRange is the range as big integers in the field's own domain (time: units since the
// epoch).
func (v *validator) fieldRange(raw *rawField, f *Field, label string, radix *big.Int) (lo, hi *big.Int, ok bool) {
	switch f.Kind {
	case Bool:
		return big.NewInt(0), big.NewInt(1), true
	case Enum:
		if !v.enumValues(raw, f, label) {
			return nil, nil, false
		}
		return big.NewInt(0), big.NewInt(int64(len(f.Values) - 1)), true
	case Uint, Int:
		return v.numRange(raw, f, label, radix)
	case Time:
		return v.timeRange(raw, f, label, radix)
	}
	return nil, nil, false
}

// fieldFits checks that lo ≤ hi and that the range fits the radix, then fixes the field's
// largest digit and its range keys.
func (v *validator) fieldFits(raw *rawField, f *Field, label string, lo, hi, radix *big.Int) bool {
	span := new(big.Int).Sub(hi, lo)
	if span.Sign() < 0 {
		if raw.Epoch.Set {
			v.errAt(raw.Epoch, "%s: epoch is after max; swap them", label)
			return false
		}
		v.errAt(raw.Min, "%s: min is above max; swap them", label)
		return false
	}
	if radix == nil {
		radix = new(big.Int).Add(span, big.NewInt(1))
	}
	if span.Cmp(radix) >= 0 {
		at := raw.Max
		if !at.Set {
			at = firstSet(raw.Bits, raw.Digits, raw.ValuesPos, raw.Min, raw.Epoch)
		}
		v.errAt(at, "%s: the range holds %s values but the width holds only %s (%s); widen it or narrow the range", label, new(big.Int).Add(span, big.NewInt(1)), radix, widthWords(f))
		return false
	}
	f.MaxDigit = new(big.Int).Sub(radix, big.NewInt(1)).Uint64()
	if f.Signed() {
		f.Lo, f.Hi = IntKey(lo.Int64()), IntKey(hi.Int64())
	} else {
		f.Lo, f.Hi = lo.Uint64(), hi.Uint64()
	}
	return true
}

func widthWords(f *Field) string {
	switch f.RadixKind {
	case RadixBits:
		return fmt.Sprintf("bits: %d", f.Width)
	case RadixDigits:
		return fmt.Sprintf("digits: %d", f.Width)
	}
	return "its values"
}

func firstSet(ss ...scalar) scalar {
	for _, s := range ss {
		if s.Set {
			return s
		}
	}
	return scalar{}
}

func containsKind(ks []Kind, k Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

func (v *validator) width(s scalar, label, key string, max int) (int, bool) {
	n, err := strconv.Atoi(s.Value)
	if err != nil || n < 1 || n > max {
		hint := "bits: 64 is the most a uint64 holds"
		if key == "digits" {
			hint = "digits: 19 is the most a uint64 holds"
		}
		v.errAt(s, "%s: %s must be a whole number from 1 to %d, not %q (%s)", label, key, max, s.Value, hint)
		return 0, false
	}
	return n, true
}

// aKind is "a uint", "an int", "an enum" …
func aKind(k Kind) string {
	if k == Int || k == Enum {
		return "an " + k.String()
	}
	return "a " + k.String()
}

func goType(f *Field, lo, hi *big.Int) string {
	switch f.Kind {
	case Bool:
		return "bool"
	case Enum:
		return f.Name
	case Time:
		if f.Season {
			return "time.Duration"
		}
		return "time.Time"
	case Uint:
		for _, n := range []uint{8, 16, 32} {
			if hi.BitLen() <= int(n) {
				return fmt.Sprintf("uint%d", n)
			}
		}
		return "uint64"
	}
	for _, n := range []int64{8, 16, 32} {
		min, max := -(int64(1) << (n - 1)), int64(1)<<(n-1)-1
		if lo.Int64() >= min && hi.Int64() <= max {
			return fmt.Sprintf("int%d", n)
		}
	}
	return "int64"
}

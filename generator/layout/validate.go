package layout

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/token"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Limits of the schema language.
const (
	MaxBits          = 64
	MaxDigits        = 19        // 10^19 − 1 still fits a uint64
	MaxDecimalPlaces = 15        // beyond, the decimal bound leaves almost nothing for the integer part
	MaxSeparator     = 8         // bytes
	DefaultMaxBytes  = 64        // string ids
	RedisMaxString   = 512 << 20 // a Redis string (and so a member) is at most 512 MiB
)

// ReservedNames are package-level or method names of the generated code; fields, the id and
// enum constants must not take them.
var ReservedNames = []string{
	"Entry", "Encode", "Decode", "Compare", "Fingerprint", "Layout", "Board", "NewBoard",
	"Option", "String", "Ranked", "Cursor", "Scripts",
}

// Parse reads a schema and computes its layout. file is used in diagnostics and in the
// generated header. On failure the error is Diagnostics holding every problem found.
func Parse(file string, src []byte) (*Layout, error) {
	raw, diags := parseRaw(file, src)
	if raw == nil {
		return nil, diags.sorted()
	}
	v := &validator{parser: parser{file: file, diags: diags}}
	l := v.layout(raw)
	if len(v.diags) > 0 {
		return nil, v.diags.sorted()
	}
	return l, nil
}

type validator struct {
	parser
}

func (v *validator) layout(raw *rawSchema) *Layout {
	l := &Layout{File: file0(v.file), Separator: ":", MaxBytes: DefaultMaxBytes}

	if !raw.Package.Set {
		if !raw.Package.Bad {
			v.errorf(1, 1, "missing package: add \"package: arena\" (the Go package name of the generated code)")
		}
	} else if !token.IsIdentifier(raw.Package.Value) || token.IsKeyword(raw.Package.Value) || raw.Package.Value == "_" {
		v.errAt(raw.Package, "package %q is not a Go package name; use a lower-case word like \"arena\"", raw.Package.Value)
	} else {
		l.Package = raw.Package.Value
	}
	l.Doc = strings.TrimSpace(raw.Doc.Value)

	if raw.Separator.Set {
		if len(raw.Separator.Value) > MaxSeparator {
			v.errAt(raw.Separator, "separator %q is %d bytes; keep it at most %d (\":\" is usual)", raw.Separator.Value, len(raw.Separator.Value), MaxSeparator)
		}
		l.Separator = raw.Separator.Value
	}

	v.score(raw, l)

	names := map[string]scalar{}
	v.id(raw.ID, l, names)

	if !raw.FieldsPos.Bad && (!raw.FieldsPos.Set || len(raw.Fields) == 0) {
		at := raw.FieldsPos
		if !at.Set {
			at = scalar{Line: 1, Col: 1}
		}
		v.errAt(at, "the schema has no fields; list them under \"fields:\", most significant first")
	}
	for i := range raw.Fields {
		if f := v.field(&raw.Fields[i], names); f != nil {
			l.Fields = append(l.Fields, f)
		}
	}
	v.enumNames(l, names)
	if len(v.diags) > 0 {
		return nil
	}
	v.place(raw, l)
	if len(v.diags) > 0 {
		return nil
	}
	if l.IDType == IDString && raw.ID.MaxBytes.Set && l.PrefixLen+l.MaxBytes > RedisMaxString {
		v.errAt(raw.ID.MaxBytes, "max_bytes %d plus the %d-byte member prefix exceeds Redis's 512 MiB string limit; lower max_bytes to at most %d", l.MaxBytes, l.PrefixLen, RedisMaxString-l.PrefixLen)
		return nil
	}
	l.Canonical = canonical(l)
	sum := sha256.Sum256([]byte(l.Canonical))
	l.Fingerprint = hex.EncodeToString(sum[:8])
	return l
}

func file0(f string) string {
	if i := strings.LastIndexAny(f, `/\`); i >= 0 {
		return f[i+1:]
	}
	return f
}

func (v *validator) score(raw *rawSchema, l *Layout) {
	switch raw.Score.Value {
	case "", "integer":
	case "decimal":
		l.Score = ScoreDecimal
		if raw.DecimalPlaces.Bad {
			return
		}
		if !raw.DecimalPlaces.Set {
			v.errAt(raw.Score, "score: decimal needs decimal_places: N (how many digits of the layout go after the decimal point)")
			return
		}
		n, err := strconv.Atoi(raw.DecimalPlaces.Value)
		if err != nil || n < 1 || n > MaxDecimalPlaces {
			v.errAt(raw.DecimalPlaces, "decimal_places must be a whole number from 1 to %d, not %q", MaxDecimalPlaces, raw.DecimalPlaces.Value)
			return
		}
		l.DecimalPlaces = n
	default:
		msg := fmt.Sprintf("unknown score kind %q; use integer (the default) or decimal", raw.Score.Value)
		if s := suggest(raw.Score.Value, []string{"integer", "decimal"}); s != "" {
			msg = fmt.Sprintf("unknown score kind %q; did you mean %q?", raw.Score.Value, s)
		}
		v.errAt(raw.Score, "%s", msg)
	}
	if raw.DecimalPlaces.Set && raw.Score.Value != "decimal" {
		v.errAt(raw.DecimalPlaces, "decimal_places only applies to \"score: decimal\"; add that or remove decimal_places")
	}
}

func (v *validator) id(raw rawID, l *Layout, names map[string]scalar) {
	if raw.Bad {
		return
	}
	if !raw.Set {
		v.errorf(1, 1, "missing id: add \"id: {name: PlayerID}\" (the member id's Go field name)")
		return
	}
	if raw.Name.Bad {
		// already reported
	} else if !raw.Name.Set {
		v.errorf(raw.Line, raw.Col, "id has no name; add \"name: PlayerID\" (its Go field name)")
	} else if v.goName(raw.Name, "id name") {
		l.IDName = raw.Name.Value
		names[raw.Name.Value] = raw.Name
	}
	switch raw.Type.Value {
	case "", "string":
	case "uint64":
		l.IDType = IDUint64
		if raw.MaxBytes.Set {
			v.errAt(raw.MaxBytes, "max_bytes applies to string ids only; remove it (a uint64 id is at most 20 digits)")
		}
	default:
		v.errAt(raw.Type, "unknown id type %q; use string (the default) or uint64", raw.Type.Value)
	}
	if raw.MaxBytes.Set && l.IDType == IDString {
		n, err := strconv.ParseInt(raw.MaxBytes.Value, 10, 64)
		switch {
		case err != nil || n < 1:
			v.errAt(raw.MaxBytes, "max_bytes must be a whole number of at least 1, not %q", raw.MaxBytes.Value)
		case n > RedisMaxString:
			v.errAt(raw.MaxBytes, "max_bytes %d is beyond what Redis accepts (a member is at most 512 MiB = %d bytes); lower it", n, RedisMaxString)
		default:
			l.MaxBytes = int(n)
		}
	}
}

// goName checks that s is an exported Go identifier that clashes with nothing generated.
func (v *validator) goName(s scalar, what string) bool {
	name := s.Value
	switch {
	case token.IsKeyword(name):
		v.errAt(s, "%s %q is a Go keyword; use an exported name like %q", what, name, exported(name))
	case !token.IsIdentifier(name):
		v.errAt(s, "%s %q is not a Go identifier; use letters, digits and _ , starting with an upper-case letter", what, name)
	case !token.IsExported(name):
		v.errAt(s, "%s %q is unexported; start it with an upper-case letter: %q", what, name, exported(name))
	case contains(ReservedNames, name):
		v.errAt(s, "%s %q clashes with a name rankgen generates; pick another (e.g. %q)", what, name, name+"Value")
	default:
		return true
	}
	return false
}

func exported(s string) string {
	if s == "" {
		return "Name"
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	out := string(r)
	if !token.IsIdentifier(out) {
		return "Name"
	}
	return out
}

var allowedOps = map[Kind][]Op{
	Uint: {OpAdd, OpMax, OpMin, OpSet},
	Int:  {OpAdd, OpMax, OpMin, OpSet},
	Bool: {OpSet},
	Enum: {OpMax, OpMin, OpSet},
	Time: {OpMax, OpMin, OpSet},
}

func (v *validator) field(raw *rawField, names map[string]scalar) *Field {
	if raw.Bad {
		return nil
	}
	f := &Field{Line: raw.Line, Col: raw.Col, Doc: strings.TrimSpace(raw.Doc.Value)}
	before := len(v.diags)
	if raw.Name.Bad {
		// already reported
	} else if !raw.Name.Set {
		v.errorf(raw.Line, raw.Col, "field has no name; add \"name: Points\" (its Go field name)")
	} else if v.goName(raw.Name, "field name") {
		if prev, dup := names[raw.Name.Value]; dup {
			v.errAt(raw.Name, "name %q is already used at line %d; names must be unique: rename one", raw.Name.Value, prev.Line)
		} else {
			names[raw.Name.Value] = raw.Name
		}
	}
	f.Name = raw.Name.Value
	label := fmt.Sprintf("field %q", f.Name)

	switch raw.Type.Value {
	case "uint":
		f.Kind = Uint
	case "int":
		f.Kind = Int
	case "bool":
		f.Kind = Bool
	case "enum":
		f.Kind = Enum
	case "time":
		f.Kind = Time
	case "":
		if raw.Type.Bad {
			return nil
		}
		at := raw.Type
		if !at.Set {
			at = scalar{Line: raw.Line, Col: raw.Col}
		}
		v.errAt(at, "%s has no type; add \"type:\" with one of uint, int, bool, enum, time", label)
		return nil
	default:
		msg := fmt.Sprintf("%s has unknown type %q; use one of uint, int, bool, enum, time", label, raw.Type.Value)
		if s := suggest(raw.Type.Value, kindNames); s != "" {
			msg = fmt.Sprintf("%s has unknown type %q; did you mean %q?", label, raw.Type.Value, s)
		}
		v.errAt(raw.Type, "%s", msg)
		return nil
	}

	switch raw.Order.Value {
	case "desc":
	case "asc":
		f.Order = Asc
	case "":
		if raw.Order.Bad {
			break
		}
		v.errorf(raw.Line, raw.Col, "%s has no order; add \"order: desc\" (higher ranks first) or \"order: asc\" (lower ranks first)", label)
	default:
		v.errAt(raw.Order, "%s: order must be desc (higher ranks first) or asc (lower ranks first), not %q", label, raw.Order.Value)
	}
	switch raw.In.Value {
	case "", "score", "member":
	default:
		v.errAt(raw.In, "%s: in must be score or member, not %q", label, raw.In.Value)
	}

	// Keys that only some kinds take.
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
	if len(v.diags) > before {
		return nil
	}
	for _, s := range []scalar{raw.Bits, raw.Digits, raw.Min, raw.Max, raw.Epoch, raw.Unit, raw.ValuesPos} {
		if s.Bad { // reported already; the range cannot be worked out without it
			return nil
		}
	}

	// The radix.
	var radix *big.Int // nil: not given, derived from the range
	switch {
	case raw.Bits.Set:
		n, ok := v.width(raw.Bits, label, "bits", MaxBits)
		if !ok {
			return nil
		}
		f.RadixKind, f.Width = RadixBits, n
		radix = new(big.Int).Lsh(big.NewInt(1), uint(n))
	case raw.Digits.Set:
		n, ok := v.width(raw.Digits, label, "digits", MaxDigits)
		if !ok {
			return nil
		}
		f.RadixKind, f.Width = RadixDigits, n
		radix = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
	default:
		f.RadixKind = RadixRange
	}

	// The range, as big integers in the field's own domain (time: units since the epoch).
	var lo, hi *big.Int
	switch f.Kind {
	case Bool:
		lo, hi = big.NewInt(0), big.NewInt(1)
	case Enum:
		if !v.enumValues(raw, f, label) {
			return nil
		}
		lo, hi = big.NewInt(0), big.NewInt(int64(len(f.Values)-1))
	case Uint, Int:
		var ok bool
		if lo, hi, ok = v.numRange(raw, f, label, radix); !ok {
			return nil
		}
	case Time:
		var ok bool
		if lo, hi, ok = v.timeRange(raw, f, label, radix); !ok {
			return nil
		}
	}
	span := new(big.Int).Sub(hi, lo)
	if span.Sign() < 0 {
		if raw.Epoch.Set {
			v.errAt(raw.Epoch, "%s: epoch is after max; swap them", label)
			return nil
		}
		v.errAt(raw.Min, "%s: min is above max; swap them", label)
		return nil
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
		return nil
	}
	f.MaxDigit = new(big.Int).Sub(radix, big.NewInt(1)).Uint64()
	if f.Signed() {
		f.Lo, f.Hi = IntKey(lo.Int64()), IntKey(hi.Int64())
	} else {
		f.Lo, f.Hi = lo.Uint64(), hi.Uint64()
	}
	f.GoType = goType(f, lo, hi)
	v.updates(raw, f, label)
	return f
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

func (v *validator) enumValues(raw *rawField, f *Field, label string) bool {
	if len(raw.Values) == 0 {
		at := raw.ValuesPos
		if !at.Set {
			at = scalar{Line: raw.Line, Col: raw.Col, Set: true}
		}
		v.errAt(at, "%s: an enum needs values, lowest first: values: [bronze, silver, gold]", label)
		return false
	}
	seen := map[string]int{}
	ok := true
	for _, s := range raw.Values {
		if !s.Set {
			ok = false
			continue
		}
		if !isWord(s.Value) {
			v.errAt(s, "%s: enum value %q must be a word of letters, digits and _ (it becomes a Go constant)", label, s.Value)
			ok = false
			continue
		}
		if line, dup := seen[s.Value]; dup {
			v.errAt(s, "%s: enum value %q is listed twice (first at line %d); values must be unique", label, s.Value, line)
			ok = false
			continue
		}
		seen[s.Value] = s.Line
		f.Values = append(f.Values, s.Value)
	}
	return ok
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) && r < 128 || unicode.IsDigit(r) && r < 128 && i >= 0) {
			return false
		}
	}
	return true
}

var (
	bigMaxU64 = new(big.Int).SetUint64(math.MaxUint64)
	bigMinI64 = big.NewInt(math.MinInt64)
	bigMaxI64 = big.NewInt(math.MaxInt64)
)

func (v *validator) numRange(raw *rawField, f *Field, label string, radix *big.Int) (lo, hi *big.Int, ok bool) {
	floor, ceil := big.NewInt(0), bigMaxU64
	if f.Kind == Int {
		floor, ceil = bigMinI64, bigMaxI64
	}
	parse := func(s scalar, key string) *big.Int {
		n, good := new(big.Int).SetString(s.Value, 10)
		if !good || n.Cmp(floor) < 0 || n.Cmp(ceil) > 0 {
			v.errAt(s, "%s: %s must be a whole number from %s to %s, not %q", label, key, floor, ceil, s.Value)
			return nil
		}
		return n
	}
	if raw.Min.Set {
		if lo = parse(raw.Min, "min"); lo == nil {
			return nil, nil, false
		}
	}
	if raw.Max.Set {
		if hi = parse(raw.Max, "max"); hi == nil {
			return nil, nil, false
		}
	}
	if radix == nil && (hi == nil || lo == nil && f.Kind == Int) {
		need := "bits: n, digits: n, or max: N (the range is then 0 … N)"
		if f.Kind == Int {
			need = "bits: n (a two's-complement range), digits: n with min: or max:, or both min: and max:"
		}
		v.errorf(raw.Line, raw.Col, "%s needs a width: add %s", label, need)
		return nil, nil, false
	}
	last := func() *big.Int { return new(big.Int).Sub(radix, big.NewInt(1)) }
	switch {
	case lo != nil && hi != nil:
	case lo != nil:
		hi = new(big.Int).Add(lo, last())
	case hi != nil && f.Kind == Uint:
		lo = big.NewInt(0)
	case hi != nil:
		lo = new(big.Int).Sub(hi, last())
	case f.Kind == Uint:
		lo = big.NewInt(0)
		hi = last()
	case f.RadixKind == RadixBits:
		half := new(big.Int).Rsh(radix, 1)
		lo, hi = new(big.Int).Neg(half), new(big.Int).Sub(half, big.NewInt(1))
	default:
		v.errorf(raw.Line, raw.Col, "%s: an int with digits needs min or max to place its range (e.g. min: -500)", label)
		return nil, nil, false
	}
	if hi.Cmp(ceil) > 0 { // the radix runs past the type: the range stops at the type's edge
		hi = new(big.Int).Set(ceil)
	}
	if lo.Cmp(floor) < 0 {
		lo = new(big.Int).Set(floor)
	}
	return lo, hi, true
}

func (v *validator) timeRange(raw *rawField, f *Field, label string, radix *big.Int) (lo, hi *big.Int, ok bool) {
	switch raw.Unit.Value {
	case "s":
		f.Unit = Second
	case "ms":
		f.Unit = Milli
	case "us", "µs":
		f.Unit = Micro
	case "":
		v.errorf(raw.Line, raw.Col, "%s has no unit; add \"unit:\" with s, ms or us", label)
		return nil, nil, false
	default:
		v.errAt(raw.Unit, "%s: unit must be s, ms or us, not %q", label, raw.Unit.Value)
		return nil, nil, false
	}
	if raw.Epoch.Set && raw.Min.Set {
		v.errAt(raw.Min, "%s: epoch and min are the same anchor (the start of the range); keep one", label)
		return nil, nil, false
	}
	start := raw.Min
	if raw.Epoch.Set {
		start = raw.Epoch
	}
	instant := func(s scalar, key string) *big.Int {
		t, err := time.Parse(time.RFC3339Nano, s.Value)
		if err != nil {
			v.errAt(s, "%s: %s must be an RFC 3339 time like 2026-01-01T00:00:00Z, not %q%s", label, key, s.Value, rfc3339Hint(s.Value))
			return nil
		}
		n, good := TimeUnits(t, f.Unit)
		if !good {
			v.errAt(s, "%s: %s %s is too far from 1970 to count in %s", label, key, s.Value, f.Unit)
			return nil
		}
		if !t.Truncate(f.Unit.Duration()).Equal(t) {
			v.errAt(s, "%s: %s %s is finer than the unit %s; round it to whole %s", label, key, s.Value, f.Unit, unitWords[f.Unit])
			return nil
		}
		return big.NewInt(n)
	}
	if start.Set {
		if lo = instant(start, map[bool]string{true: "epoch", false: "min"}[raw.Epoch.Set]); lo == nil {
			return nil, nil, false
		}
	}
	if raw.Max.Set {
		if hi = instant(raw.Max, "max"); hi == nil {
			return nil, nil, false
		}
	}
	switch {
	case lo == nil && hi == nil:
		v.errorf(raw.Line, raw.Col, "%s has no anchor; add epoch: (where the range starts, e.g. 2026-01-01T00:00:00Z) or max: (where it ends)", label)
		return nil, nil, false
	case radix == nil && (lo == nil || hi == nil):
		v.errorf(raw.Line, raw.Col, "%s needs a width: give bits: n or digits: n, or both ends of the range (epoch and max)", label)
		return nil, nil, false
	case lo == nil:
		lo = new(big.Int).Sub(hi, new(big.Int).Sub(radix, big.NewInt(1)))
	case hi == nil:
		hi = new(big.Int).Add(lo, new(big.Int).Sub(radix, big.NewInt(1)))
	}
	if lo.Cmp(bigMinI64) < 0 || hi.Cmp(bigMaxI64) > 0 {
		v.errorf(raw.Line, raw.Col, "%s: the range runs beyond what int64 %s since 1970 can count; narrow the width", label, f.Unit)
		return nil, nil, false
	}
	return lo, hi, true
}

var unitWords = map[Unit]string{Second: "seconds", Milli: "milliseconds", Micro: "microseconds"}

// rfc3339Hint suggests the RFC 3339 form of a date or a "date time" written without T and zone.
func rfc3339Hint(s string) string {
	for _, layout := range []string{"2006-01-02", "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return fmt.Sprintf(" (did you mean %s? RFC 3339 needs a date, a time and a zone)", t.Format(time.RFC3339))
		}
	}
	return ""
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

func (v *validator) updates(raw *rawField, f *Field, label string) {
	seen := map[Op]bool{}
	for _, s := range raw.Update {
		if !s.Set {
			continue
		}
		op := Op(s.Value)
		if !containsOp(allowedOps[f.Kind], op) {
			v.errAt(s, "%s: update %q is not offered on %s field; use %s", label, s.Value, aKind(f.Kind), opList(allowedOps[f.Kind]))
			continue
		}
		if seen[op] {
			v.errAt(s, "%s: update %q is listed twice; remove one", label, s.Value)
			continue
		}
		seen[op] = true
		f.Updates = append(f.Updates, op)
	}
	switch raw.Overflow.Value {
	case "", "error":
	case "saturate":
		f.Overflow = OverflowSaturate
	default:
		v.errAt(raw.Overflow, "%s: overflow must be error (refuse the update) or saturate (clamp at the edge), not %q", label, raw.Overflow.Value)
	}
	if raw.Overflow.Set && !seen[OpAdd] {
		v.errAt(raw.Overflow, "%s: overflow only matters for update: add; add it or remove overflow", label)
	}
	switch raw.Stamp.Value {
	case "":
	case "client":
		f.Stamp = StampClient
	case "server":
		f.Stamp = StampServer
	default:
		v.errAt(raw.Stamp, "%s: stamp must be client (the app's clock) or server (Redis's TIME), not %q", label, raw.Stamp.Value)
	}
}

func containsOp(ops []Op, op Op) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

func opList(ops []Op) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = string(o)
	}
	return strings.Join(s, ", ")
}

// EnumConst is the Go constant generated for an enum value: the field name, then the value in
// CamelCase (Tier, "gold" → TierGold).
func EnumConst(f *Field, value string) string {
	var b strings.Builder
	b.WriteString(f.Name)
	up := true
	for _, r := range value {
		if r == '_' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// enumNames checks that enum types and constants clash with no other package-level name.
func (v *validator) enumNames(l *Layout, fieldNames map[string]scalar) {
	taken := map[string]string{}
	for _, r := range ReservedNames {
		taken[r] = "a name rankgen generates"
	}
	for _, f := range l.Fields {
		if f.Kind == Enum {
			taken[f.Name] = fmt.Sprintf("the enum type of field %q", f.Name)
		}
	}
	for _, f := range l.Fields {
		if f.Kind != Enum {
			continue
		}
		for _, val := range f.Values {
			c := EnumConst(f, val)
			if what, clash := taken[c]; clash {
				v.errorf(f.Line, f.Col, "field %q: enum value %q becomes the Go constant %s, which is already %s; rename the value", f.Name, val, c, what)
				continue
			}
			taken[c] = fmt.Sprintf("the constant for %q of field %q", val, f.Name)
		}
	}
}

// place decides which fields go into the score and which into the member, and computes the
// weights, member offsets and the score's capacity.
func (v *validator) place(raw *rawSchema, l *Layout) {
	limit := scoreLimit(l)
	l.ScoreLimit = limit.Uint64()
	product := big.NewInt(1)
	spilled := -1 // index of the first member field
	var overflowAt *rawField
	for i, f := range l.Fields {
		r := new(big.Int).SetUint64(f.MaxDigit)
		r.Add(r, big.NewInt(1))
		in := raw.Fields[i].In
		switch {
		case in.Value == "member":
			f.Place = InMember
		case in.Value == "score" && spilled >= 0:
			why := "which is in the member"
			if raw.Fields[spilled].In.Value != "member" {
				why = "which went to the member because the score was full"
			}
			v.errAt(in, "field %q is placed in the score but comes after %q, %s; member fields come after all score fields: move %q up, or place it in the member",
				f.Name, l.Fields[spilled].Name, why, f.Name)
			f.Place = InMember
		case in.Value == "score":
			f.Place = InScore
			if next := new(big.Int).Mul(product, r); next.Cmp(limit) > 0 && overflowAt == nil {
				overflowAt = &raw.Fields[i]
			}
		case spilled >= 0:
			f.Place = InMember
		default: // in the score while it fits; the leading field must fit
			if new(big.Int).Mul(product, r).Cmp(limit) <= 0 {
				f.Place = InScore
			} else if i == 0 {
				f.Place = InScore
				overflowAt = &raw.Fields[i]
			} else {
				f.Place = InMember
			}
		}
		if f.Place == InScore {
			product.Mul(product, r)
		} else if spilled < 0 {
			spilled = i
		}
	}
	if overflowAt != nil {
		v.scoreOverflow(l, overflowAt, product, limit)
		return
	}
	if spilled < 0 {
		spilled = len(l.Fields)
	}
	l.NumScore = spilled
	l.ScoreRadix = product.Uint64()
	w := uint64(1)
	for i := l.NumScore - 1; i >= 0; i-- {
		l.Fields[i].Weight = w
		w *= l.Fields[i].MaxDigit + 1
	}
	off := 0
	for _, f := range l.MemberFields() {
		f.Offset = off
		switch f.RadixKind {
		case RadixBits:
			f.Hex, f.TextWidth = true, (f.Width+3)/4
		case RadixDigits:
			f.TextWidth = f.Width
		default:
			f.TextWidth = len(strconv.FormatUint(f.MaxDigit, 10))
		}
		off += f.TextWidth + len(l.Separator)
	}
	l.PrefixLen = off
}

// scoreLimit is the number of distinct P the score holds exactly: 2^53 for integer scores.
// For decimal scores, P / 10^w stays injective (and decodable) while the spacing of doubles
// around the largest score is below 10^-w: with X < 2^(E+1), ulp(X) = 2^(E−52) < 10^−w.
func scoreLimit(l *Layout) *big.Int {
	limit := big.NewInt(MaxScore)
	if l.Score != ScoreDecimal {
		return limit
	}
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(l.DecimalPlaces)), nil)
	// Largest E with 10^w · 2^(E−52) < 1, i.e. 10^w < 2^(52−E).
	e := 52
	for ; e > -1100; e-- {
		if 52-e >= 0 && pow.Cmp(new(big.Int).Lsh(big.NewInt(1), uint(52-e))) < 0 {
			break
		}
	}
	// X < 2^(E+1)  ⇔  P < 2^(E+1) · 10^w.
	var cap *big.Int
	if e+1 >= 0 {
		cap = new(big.Int).Mul(new(big.Int).Lsh(big.NewInt(1), uint(e+1)), pow)
	} else {
		cap = new(big.Int).Div(pow, new(big.Int).Lsh(big.NewInt(1), uint(-(e+1))))
	}
	if cap.Cmp(limit) < 0 {
		return cap
	}
	return limit
}

func (v *validator) scoreOverflow(l *Layout, at *rawField, product, limit *big.Int) {
	var parts []string
	for _, f := range l.Fields {
		if f.Place == InScore {
			parts = append(parts, fmt.Sprintf("%s %.1f", f.Name, log2u(f.MaxDigit)+bitsOfOne(f.MaxDigit)))
		}
	}
	need, has := bigLog2(product), bigLog2(limit)
	holds := fmt.Sprintf("a float64 score holds %.1f bits exactly (2^53)", has)
	if l.Score == ScoreDecimal {
		holds = fmt.Sprintf("with decimal_places: %d the score stays exact only below %s, %.1f bits", l.DecimalPlaces, limit, has)
	}
	v.errorf(at.Line, at.Col, "the score needs %.1f bits (%s; the radices multiply to %s, above %s) but %s; narrow a field (%sfewer bits or digits, or a tighter min/max), or move the last fields to the member with \"in: member\"",
		need, strings.Join(parts, " + "), product, limit, holds, narrowHint(l, product, limit))
}

// narrowHint names the widest the leading score field could be with the others unchanged, when
// it is a uint (the usual "points" field): "Raw to max: 899, " or "Points to bits: 21, ".
func narrowHint(l *Layout, product, limit *big.Int) string {
	var f *Field
	for _, g := range l.Fields {
		if g.Place == InScore {
			f = g
			break
		}
	}
	if f == nil || f.Kind != Uint {
		return ""
	}
	r := new(big.Int).SetUint64(f.MaxDigit)
	r.Add(r, big.NewInt(1))
	rest := new(big.Int).Div(product, r)
	fit := new(big.Int).Div(limit, rest) // the largest radix the field may have
	if fit.Cmp(big.NewInt(2)) < 0 {
		return ""
	}
	if f.RadixKind == RadixBits {
		return fmt.Sprintf("e.g. %s to bits: %d, ", f.Name, fit.BitLen()-1)
	}
	return fmt.Sprintf("e.g. %s to max: %s, ", f.Name, new(big.Int).Add(new(big.Int).SetUint64(f.Lo), new(big.Int).Sub(fit, big.NewInt(1))))
}

// bitsOfOne corrects log2(R−1) to log2(R) for the per-field breakdown.
func bitsOfOne(maxDigit uint64) float64 {
	if maxDigit == math.MaxUint64 {
		return 0
	}
	return log2u(maxDigit+1) - log2u(maxDigit)
}

func bigLog2(x *big.Int) float64 {
	if x.Sign() <= 0 {
		return 0
	}
	n := x.BitLen()
	if n <= 53 {
		return math.Log2(float64(x.Uint64()))
	}
	top := new(big.Int).Rsh(x, uint(n-53)).Uint64()
	return math.Log2(float64(top)) + float64(n-53)
}

// canonical is the text of everything that decides how entries are stored: the fingerprint
// changes exactly when this does. Names (Go-level) are left out on purpose.
func canonical(l *Layout) string {
	var b strings.Builder
	fmt.Fprintf(&b, "rankgen layout 1\nscore %s %d\nseparator %q\nid %s\n", l.Score, l.DecimalPlaces, l.Separator, l.IDType)
	for _, f := range l.Fields {
		fmt.Fprintf(&b, "field %s %s %s radix-1=%d min=%s max=%s", f.Place, f.Kind, f.Order, f.MaxDigit, f.Format(f.Lo), f.Format(f.Hi))
		if f.Kind == Time {
			fmt.Fprintf(&b, " unit=%s", f.Unit)
		}
		if f.Kind == Enum {
			fmt.Fprintf(&b, " values=%s", strings.Join(f.Values, ","))
		}
		if f.Place == InMember {
			fmt.Fprintf(&b, " text=%d hex=%t", f.TextWidth, f.Hex)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

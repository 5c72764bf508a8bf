// Package layout turns a rankgen schema into the one model everything else is derived from:
// for each field its radix, digit transform, place (score or member), weight or member offset,
// and Go type; a canonical form and its fingerprint; and an interpreted codec over the model,
// which serves the CLI and is the oracle generated code is tested against.
//
// The maths (docs/codec.md): field i stores a digit d_i in [0, R_i), larger digit = ranks
// first (desc: d = v − min; asc: d = max − v). The score is the mixed-radix integer
// P = Σ d_i·W_i over the score fields (W_i = product of the radices after i), kept at most
// 2^53 so a float64 holds it exactly. Fields after the score go into the member as a
// fixed-width, order-preserving text prefix before the id.
package layout

import (
	"math"
	"math/bits"
	"strings"
	"time"
)

// Kind is the type of a field's values.
type Kind int

const (
	Uint Kind = iota
	Int
	Bool
	Enum
	Time
	String // data fields only: bytes of at most MaxBytes
)

var kindNames = []string{"uint", "int", "bool", "enum", "time", "string"}

func (k Kind) String() string { return kindNames[k] }

// Order says which values rank first.
type Order int

const (
	Desc Order = iota // higher values rank first
	Asc               // lower values rank first (e.g. "reached earlier")
)

func (o Order) String() string { return [...]string{"desc", "asc"}[o] }

// Place is where a field's digit is stored.
type Place int

const (
	InScore Place = iota
	InMember
)

func (p Place) String() string { return [...]string{"score", "member"}[p] }

// RadixKind is how a field's width was declared; it also fixes how the field is written in
// the member prefix.
type RadixKind int

const (
	RadixBits   RadixKind = iota // bits: n → R = 2^n, written as zero-padded lower-case hex
	RadixDigits                  // digits: n → R = 10^n, written as zero-padded decimal
	RadixRange                   // from the range (min/max, bool, enum values), zero-padded decimal
)

// ScoreKind selects how the mixed-radix integer P becomes a float64 score.
type ScoreKind int

const (
	ScoreInteger ScoreKind = iota // score = P
	ScoreDecimal                  // score = P / 10^decimal_places (seed-style "value.fraction")
	ScoreBits62                   // score = the float64 whose bit pattern is P (P < 2^62)
)

func (s ScoreKind) String() string { return [...]string{"integer", "decimal", "bits62"}[s] }

// Unit is the resolution of a time field.
type Unit int

const (
	Second Unit = iota
	Milli
	Micro
)

func (u Unit) String() string { return [...]string{"s", "ms", "us"}[u] }

// Duration is the length of one unit.
func (u Unit) Duration() time.Duration {
	return [...]time.Duration{time.Second, time.Millisecond, time.Microsecond}[u]
}

// IDType is the Go type of the member id.
type IDType int

const (
	IDString IDType = iota
	IDUint64
)

func (t IDType) String() string { return [...]string{"string", "uint64"}[t] }

// Op is an update operation a board offers on a field.
type Op string

const (
	OpAdd Op = "add" // signed delta
	OpMax Op = "max" // keep the larger of old and new
	OpMin Op = "min" // keep the smaller of old and new
	OpSet Op = "set" // replace
)

// Overflow says what an update does at the edge of a field's range.
type Overflow int

const (
	OverflowError    Overflow = iota // refuse the update, leave the entry unchanged
	OverflowSaturate                 // clamp at the range's edge
)

func (o Overflow) String() string { return [...]string{"error", "saturate"}[o] }

// Stamp says whether a time field is set to "now" on every update that changes the entry.
type Stamp int

const (
	StampNone   Stamp = iota
	StampClient       // the client's clock
	StampServer       // Redis's TIME, one clock for every writer
)

func (s Stamp) String() string { return [...]string{"none", "client", "server"}[s] }

// signBit maps int64 to uint64 preserving order: key = uint64(v) ^ signBit.
const signBit = 1 << 63

// MaxScore is the largest integer below which every integer is exact in a float64.
const MaxScore = 1 << 53

// MaxBits62 bounds P for score: bits62. Every pattern below it is a non-negative finite double
// (sign bit clear, exponent below 0x7FF), and such doubles order exactly as their patterns.
const MaxBits62 = 1 << 62

// MaxBits62Radix bounds each field's radix in a bits62 score: scripts divide P by a radix R in
// limbs of 8 bits or more, exactly while 256·R ≤ 2^53.
const MaxBits62Radix = 1 << 45

// Field is one field of the layout.
type Field struct {
	Name string // Go field name, as in the schema
	Doc  string
	Kind Kind

	Order Order
	Place Place

	RadixKind RadixKind
	Width     int    // n of bits: n or digits: n; 0 for RadixRange
	MaxDigit  uint64 // R − 1: the largest digit the radix allows

	// Lo and Hi are the range as keys: the value itself for uint, bool (0/1), enum (index);
	// for int and time (in units since the Unix epoch) the int64 with its sign bit flipped,
	// so keys order like values. Hi − Lo ≤ MaxDigit.
	Lo, Hi uint64

	Unit   Unit     // time fields
	Values []string // enum fields, lowest first

	Updates  []Op
	Overflow Overflow
	Stamp    Stamp

	GoType string // uint8…uint64, int8…int64, bool, time.Time, time.Duration, or the enum's type name (= Name)

	// Season: a time field with epoch: season, whose keys are offsets from the start of the
	// board's season (in units, from 0) and whose Go type is time.Duration.
	Season bool

	Weight uint64 // in the score: W_i

	Offset    int  // in the member: byte offset of the field's text
	TextWidth int  // in the member: bytes of the field's text
	Hex       bool // in the member: lower-case hex (else decimal)

	MaxBytes int // string data fields: the longest value accepted

	Line, Col int // position of the field in the schema
}

// Signed reports whether keys are sign-flipped int64 values (int and time fields).
func (f *Field) Signed() bool { return f.Kind == Int || f.Kind == Time }

// Radix is R, or 0 when R = 2^64 (a bits: 64 field).
func (f *Field) Radix() uint64 { return f.MaxDigit + 1 }

// Digit maps a key (already range-checked) to the stored digit: larger digit ranks first.
func (f *Field) Digit(key uint64) uint64 {
	if f.Order == Desc {
		return key - f.Lo
	}
	return f.Hi - key
}

// Key maps a digit (at most Hi − Lo) back to the key.
func (f *Field) Key(digit uint64) uint64 {
	if f.Order == Desc {
		return f.Lo + digit
	}
	return f.Hi - digit
}

// ZeroDigit is the digit a field takes in the entry that an update of a missing id starts
// from: the field's Go zero value (0, false, the first enum value, for time the Unix epoch)
// when it lies in the field's range, else the field's lowest-ranking value (digit 0). It is a
// board rule: the Lua library and the board model both start from it.
func (f *Field) ZeroDigit() uint64 {
	var key uint64
	if f.Signed() {
		key = IntKey(0)
	}
	if key < f.Lo || key > f.Hi {
		return 0
	}
	return f.Digit(key)
}

// Span is Hi − Lo, the largest digit a value of the range produces.
func (f *Field) Span() uint64 { return f.Hi - f.Lo }

// IntKey is the key of a signed value; UnKey inverts it.
func IntKey(v int64) uint64 { return uint64(v) ^ signBit }

// IntOf returns the signed value of a key of an int or time field.
func IntOf(key uint64) int64 { return int64(key ^ signBit) }

// MinInt and MaxInt are the range of an int or time field (time: in units since the epoch).
func (f *Field) MinInt() int64 { return IntOf(f.Lo) }
func (f *Field) MaxInt() int64 { return IntOf(f.Hi) }

// exactUnits is 2^53: below it, the scripts' doubles hold every whole number of units.
const exactUnits = 1 << 53

// StampExact reports whether the scripts can stamp the time field f exactly: its range lies
// within ±2^53 units of the Unix epoch and spans fewer than 2^53 units.
func (f *Field) StampExact() bool {
	return f.Span() < exactUnits && f.MinInt() > -exactUnits && f.MaxInt() < exactUnits
}

// TimeOf converts a key of a time field to the instant it stands for (UTC).
func (f *Field) TimeOf(key uint64) time.Time {
	n := IntOf(key)
	switch f.Unit {
	case Milli:
		return time.UnixMilli(n).UTC()
	case Micro:
		return time.UnixMicro(n).UTC()
	}
	return time.Unix(n, 0).UTC()
}

// TimeUnits is t truncated (floored) to the unit u, in units since the Unix epoch. ok is false
// when that count is beyond int64; every count within it is reached, to its ends.
func TimeUnits(t time.Time, u Unit) (n int64, ok bool) {
	perSec := int64(time.Second / u.Duration())
	sec, sub := t.Unix(), int64(t.Nanosecond())/int64(u.Duration())
	if sec < 0 { // count the whole seconds one nearer zero, so sec·perSec overflows only if n does
		sec, sub = sec+1, sub-perSec
	}
	if sec > math.MaxInt64/perSec || sec < math.MinInt64/perSec {
		return 0, false
	}
	n = sec * perSec
	if sub > 0 && n > math.MaxInt64-sub || sub < 0 && n < math.MinInt64-sub {
		return 0, false
	}
	return n + sub, true
}

// Layout is the computed, validated layout of a schema.
type Layout struct {
	File    string // the schema's file name, as given
	Package string
	Doc     string

	IDName   string
	IDType   IDType
	MaxBytes int // string ids: the longest id accepted
	// IDOrder breaks ties (entries equal on every field): Desc, the larger id first (the
	// member's bytes as Redis reads them), or Asc, the smaller id first, for which the member
	// holds the id's text reversed (IDText) and the board keeps an id index.
	IDOrder Order

	Separator string

	Score         ScoreKind
	DecimalPlaces int // ScoreDecimal: the score is P / 10^DecimalPlaces

	Fields   []*Field
	NumScore int // Fields[:NumScore] are in the score, the rest in the member

	Season *Season // a periodic board's calendar; nil for a board that is not

	// Sharded: the schema asks for ShardedBoard (sharded: true), one board spread over several
	// keys. Only the generated API depends on it, not a stored byte, so it is outside the
	// canonical form and both fingerprints: a Board and a ShardedBoard shard of the same layout
	// store the same entries the same way.
	Sharded bool

	// Feeds are the schema's feeds: generated calls that write an entry to several boards of the
	// layout in one script. Generated API only, outside the canonical form and the fingerprints.
	Feeds []*Feed

	// Previous is the schema this one replaces, when it names one (previous:): generated code
	// then writes a board in the previous layout until a migration switches it. Generated API
	// only, outside the canonical form and the fingerprints; LoadPrevious reads its layout.
	Previous *Previous

	ScoreRadix uint64 // Π R over the score fields: P ∈ [0, ScoreRadix)
	ScoreLimit uint64 // the most distinct P the score kind holds exactly (2^53, 2^62, or the decimal bound)

	PrefixLen int // bytes before the id in a member (field texts and separators)

	Canonical   string // canonical text of everything that decides the stored encoding
	Fingerprint string // hex SHA-256 prefix of Canonical

	// Data are the entry data fields: stored beside each entry, returned with it, never ranked.
	Data []*Field
	// StoreCanonical is Canonical followed by the data fields' stored format, and
	// StoreFingerprint its fingerprint: the fingerprint of everything a board stores. Without
	// data fields they equal Canonical and Fingerprint.
	StoreCanonical   string
	StoreFingerprint string
	// DataFingerprint is the fingerprint of the data fields' stored format alone: the data hash
	// records it, so that data outlives a migration of the ranking layout ("" without data).
	DataFingerprint string
	// DataChain is the fingerprints of the stored formats of the data fields' prefixes, the
	// first field's to all of them (DataFingerprint): the data hash records it, and code whose
	// chain holds the stored format's last fingerprint, or whose last is in the stored chain,
	// shares the board (fields appended at the end are a compatible change).
	DataChain []string
}

// ScoreFields and MemberFields split Fields by place.
func (l *Layout) ScoreFields() []*Field  { return l.Fields[:l.NumScore] }
func (l *Layout) MemberFields() []*Field { return l.Fields[l.NumScore:] }

// HasPrefix reports whether a member is more than the bare id: it carries a field prefix, or
// the id's reversed text (IDOrder Asc). Such a board keeps an id → member index.
func (l *Layout) HasPrefix() bool { return l.HasMemberFields() || l.IDOrder == Asc }

// HasMemberFields reports whether some fields live in the member (after the score's).
func (l *Layout) HasMemberFields() bool { return l.NumScore < len(l.Fields) }

// Field returns the field with the given name, or nil.
func (l *Layout) Field(name string) *Field {
	for _, f := range l.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// ScoreBits is log2 of the score's radix product: the bits of capacity the score uses.
func (l *Layout) ScoreBits() float64 { return log2u(l.ScoreRadix) }

// Pow10 is 10^DecimalPlaces as a float64 (exact for every allowed DecimalPlaces).
func (l *Layout) Pow10() float64 { return math.Pow10(l.DecimalPlaces) }

func log2u(x uint64) float64 {
	if x == 0 {
		return 64
	}
	n := bits.Len64(x) - 1
	return float64(n) + math.Log2(float64(x)/math.Exp2(float64(n)))
}

// Stem is the schema's file name without its extension ("arena" for arena.yaml); every
// generated file is named after it.
func (l *Layout) Stem() string {
	s := l.File
	for _, ext := range []string{".yaml", ".yml"} {
		s = strings.TrimSuffix(s, ext)
	}
	return s
}

// GoFile is the name of the generated Go file.
func (l *Layout) GoFile() string { return l.Stem() + ".rankgen.go" }

// Header is the generated-code marker that every file generated from the schema carries in a
// comment near its top ("// " in Go, "-- " in Lua): it says how to regenerate the file and
// matches Go's convention for generated files (^// Code generated .* DO NOT EDIT\.$).
func Header(schemaFile string) string {
	return `Code generated by "rankgen generate ` + schemaFile + `"; DO NOT EDIT.`
}

// LuaFile is the name of the generated Lua library: every board operation's function.
func (l *Layout) LuaFile() string { return l.Stem() + ".rankgen.lua" }

// MaxIDBytes is the longest id: max_bytes, or the 20 digits of the largest uint64.
func (l *Layout) MaxIDBytes() int {
	if l.IDType == IDUint64 {
		return uint64Digits
	}
	return l.MaxBytes
}

// MaxIDTextBytes is the most bytes an id takes in the member: as MaxIDBytes, or with IDOrder
// Asc its reversed text (IDText): 20 digits, or two hex digits a byte and an end byte.
func (l *Layout) MaxIDTextBytes() int {
	switch {
	case l.IDOrder == Desc:
		return l.MaxIDBytes()
	case l.IDType == IDUint64:
		return uint64Digits
	}
	return 2*l.MaxBytes + 1
}

// MaxMemberBytes is the longest member the layout writes: the field prefix and the longest id.
func (l *Layout) MaxMemberBytes() int { return l.PrefixLen + l.MaxIDTextBytes() }

package layout

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/rankgen/rankgen/text/quote"
)

// Entry is an entry as the interpreted codec sees it: the id and, for each field of the
// layout, its value as a key (see Field.Lo). For uint64 ids, ID is the decimal form.
type Entry struct {
	ID   string
	Keys []uint64
	Data []DataValue // a layout with data fields: the entry's data (nil: none given); never ranked
}

// Check returns a *rankgenrt.RangeError when key is outside the field's range.
func (f *Field) Check(key uint64) error {
	if key >= f.Lo && key <= f.Hi {
		return nil
	}
	return &rankgenrt.RangeError{Field: f.Name, Value: f.Format(key), Min: f.Format(f.Lo), Max: f.Format(f.Hi)}
}

// Format writes a key as the value it stands for: a number, true/false, an enum value's name,
// or an RFC 3339 time.
func (f *Field) Format(key uint64) string {
	switch f.Kind {
	case Int:
		return strconv.FormatInt(IntOf(key), 10)
	case Bool:
		return strconv.FormatBool(key != 0)
	case Enum:
		if key < uint64(len(f.Values)) {
			return f.Values[key]
		}
	case Time:
		if f.Season {
			return f.OffsetOf(key).String()
		}
		return f.TimeOf(key).Format("2006-01-02T15:04:05.999999Z07:00")
	}
	return strconv.FormatUint(key, 10)
}

// Parse reads a value as Format writes it and returns its key: the exact inverse of Format,
// which every caller that reads a field's value as text shares (rankgen encode, migrate's
// -default). Text that is not a value of the field is an error naming the field; a value
// outside the range, or a time finer than the unit (never truncated), is a *RangeError
// matching ErrOutOfRange.
func (f *Field) Parse(text string) (uint64, error) {
	switch f.Kind {
	case Uint:
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return 0, f.syntaxError(text)
		}
		return n, f.Check(n)
	case Int:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return 0, f.syntaxError(text)
		}
		return IntKey(n), f.Check(IntKey(n))
	case Bool:
		switch text {
		case "false":
			return 0, nil
		case "true":
			return 1, nil
		}
	case Enum:
		if i := slices.Index(f.Values, text); i >= 0 {
			return uint64(i), nil
		}
	case Time:
		if f.Season {
			d, err := time.ParseDuration(text)
			if err != nil {
				return 0, f.syntaxError(text)
			}
			return f.OffsetKey(d)
		}
		t, err := parseInstant(text)
		switch {
		case errors.Is(err, errFarTime):
			return 0, &rankgenrt.RangeError{Field: f.Name, Value: text, Min: f.Format(f.Lo), Max: f.Format(f.Hi)}
		case err != nil:
			return 0, f.syntaxError(text)
		}
		return f.TimeKey(t)
	}
	return 0, f.syntaxError(text)
}

// Want says in words what text Parse reads for the field.
func (f *Field) Want() string {
	switch f.Kind {
	case Uint, Int:
		return fmt.Sprintf("a whole number from %s to %s", f.Format(f.Lo), f.Format(f.Hi))
	case Bool:
		return "true or false"
	case Enum:
		return "one of " + strings.Join(f.Values, ", ")
	case Time:
		if f.Season {
			return fmt.Sprintf("the offset from the season's start, a duration from %s to %s", f.Format(f.Lo), f.Format(f.Hi))
		}
		return fmt.Sprintf("an RFC 3339 time from %s to %s", f.Format(f.Lo), f.Format(f.Hi))
	}
	return "a string" // string data: the text itself, which has no key
}

func (f *Field) syntaxError(text string) error {
	return fmt.Errorf("%s: want %s, not %s", f.Name, f.Want(), quote.Short(text))
}

// TimeKey is the key of instant t in a time field that is not season-anchored: a t outside
// the range or finer than the unit is a *RangeError (ErrOutOfRange), never truncated. It
// refuses what generated Encode refuses.
func (f *Field) TimeKey(t time.Time) (uint64, error) {
	n, ok := TimeUnits(t, f.Unit)
	key := IntKey(n)
	if !ok || key < f.Lo || key > f.Hi {
		return 0, rankgenrt.TimeRangeError(f.Name, t, f.Format(f.Lo), f.Format(f.Hi))
	}
	if !f.TimeOf(key).Equal(t) {
		return 0, rankgenrt.TimeUnitError(f.Name, t, f.Unit.Duration())
	}
	return key, nil
}

// OffsetKey is the key of offset d in a season-anchored field: a d outside the width or finer
// than the unit is a *RangeError (ErrOutOfRange), never truncated.
func (f *Field) OffsetKey(d time.Duration) (uint64, error) {
	u := f.Unit.Duration()
	if d < 0 || d/u > time.Duration(f.MaxInt()) {
		return 0, rankgenrt.OffsetRangeError(f.Name, d, f.Format(f.Lo), f.Format(f.Hi))
	}
	if d%u != 0 {
		return 0, rankgenrt.OffsetUnitError(f.Name, d, u)
	}
	return IntKey(int64(d / u)), nil
}

// gregorianCycle is 400 Gregorian years in seconds: the calendar repeats after it exactly.
const gregorianCycle = 146097 * 24 * 60 * 60

// errFarTime is parseInstant's error for a well-formed time beyond int64 seconds.
var errFarTime = errors.New("beyond int64 seconds since 1970")

// parseInstant reads RFC 3339, and the years beyond 0000 … 9999 that Format writes for a
// range reaching past them ("-0001-…", "36812-…"): such a year is read as its equivalent in
// 2000 … 2399, whole 400-year cycles away.
func parseInstant(text string) (time.Time, error) {
	notTime := errors.New("not an RFC 3339 time")
	digits := strings.TrimPrefix(text, "-")
	negative := len(digits) < len(text)
	end := strings.IndexByte(digits, '-')
	switch {
	case end == 4 && !negative:
		return time.Parse(time.RFC3339Nano, text)
	case end < 4 || end > 12 || !negative && digits[0] == '0':
		return time.Time{}, notTime
	}
	year, err := strconv.ParseUint(digits[:end], 10, 64) // digits only: no sign, no '+'
	if err != nil {
		return time.Time{}, notTime
	}
	y := int64(year)
	if negative {
		y = -y
	}
	same := (y%400+400)%400 + 2000
	t, err := time.Parse(time.RFC3339Nano, strconv.FormatInt(same, 10)+digits[end:])
	if err != nil {
		return time.Time{}, err
	}
	shift, sec := (y-same)/400, t.Unix() // in cycles, then in seconds
	if shift > math.MaxInt64/gregorianCycle || shift < math.MinInt64/gregorianCycle {
		return time.Time{}, errFarTime
	}
	shift *= gregorianCycle
	if shift > 0 && sec > math.MaxInt64-shift || shift < 0 && sec < math.MinInt64-shift {
		return time.Time{}, errFarTime
	}
	return time.Unix(sec+shift, int64(t.Nanosecond())).UTC(), nil
}

// CheckID validates an id: a string of 1…MaxBytes bytes, or a canonical decimal uint64.
func (l *Layout) CheckID(id string) error {
	if l.IDType == IDUint64 {
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil || strconv.FormatUint(n, 10) != id {
			return &rankgenrt.RangeError{Field: l.IDName, Value: strconv.Quote(id), Min: "0", Max: "18446744073709551615"}
		}
		return nil
	}
	if len(id) == 0 || len(id) > l.MaxBytes {
		return rankgenrt.IDLengthError(l.IDName, len(id), l.MaxBytes)
	}
	return nil
}

// ScoreOf turns the mixed-radix integer P into the score Redis stores.
func (l *Layout) ScoreOf(p uint64) float64 {
	switch l.Score {
	case ScoreDecimal:
		return float64(p) / l.Pow10()
	case ScoreBits62:
		return math.Float64frombits(p)
	}
	return float64(p)
}

// POf recovers P from a score, refusing any score this layout cannot have produced.
func (l *Layout) POf(score float64) (uint64, error) {
	// -0 is refused too: Encode never writes it, and a decoder that accepted it would not be
	// canonical (Encode of the result gives +0).
	if math.IsNaN(score) || math.Signbit(score) || math.IsInf(score, 0) {
		return 0, rankgenrt.BadScore(score, "not a finite non-negative number")
	}
	if l.Score == ScoreBits62 {
		// Every pattern below ScoreRadix is some P; the sign bit, NaN and Inf lie above it.
		if p := math.Float64bits(score); p < l.ScoreRadix {
			return p, nil
		}
		return 0, rankgenrt.BadScore(score, "a bit pattern above the layout's largest "+strconv.FormatUint(l.ScoreRadix-1, 10))
	}
	if l.Score == ScoreDecimal {
		// fl(P / 10^w) is correctly rounded and the layout keeps it injective, so the true P is
		// within one of round(score · 10^w): try the neighbours, exact by construction.
		c := math.Round(score * l.Pow10())
		for _, p := range [3]float64{c, c - 1, c + 1} {
			if p >= 0 && p < float64(l.ScoreRadix) && p/l.Pow10() == score {
				return uint64(p), nil
			}
		}
		return 0, rankgenrt.BadScore(score, "not a value of the form P / 10^"+strconv.Itoa(l.DecimalPlaces)+" this layout writes")
	}
	if score != math.Trunc(score) {
		return 0, rankgenrt.BadScore(score, "not an integer")
	}
	if score >= float64(l.ScoreRadix) {
		return 0, rankgenrt.BadScore(score, "above the layout's largest score "+strconv.FormatUint(l.ScoreRadix-1, 10))
	}
	return uint64(score), nil
}

// Encode computes the (score, member) pair Redis stores for e.
func (l *Layout) Encode(e Entry) (score float64, member string, err error) {
	if len(e.Keys) != len(l.Fields) {
		return 0, "", &rankgenrt.RangeError{Field: "entry", Value: strconv.Itoa(len(e.Keys)) + " fields", Min: strconv.Itoa(len(l.Fields)), Max: strconv.Itoa(len(l.Fields))}
	}
	for i, f := range l.Fields {
		if err := f.Check(e.Keys[i]); err != nil {
			return 0, "", err
		}
	}
	if err := l.CheckID(e.ID); err != nil {
		return 0, "", err
	}
	var p uint64
	for i, f := range l.ScoreFields() {
		p += f.Digit(e.Keys[i]) * f.Weight
	}
	if !l.HasPrefix() {
		return l.ScoreOf(p), e.ID, nil
	}
	var b strings.Builder
	b.Grow(l.PrefixLen + l.MaxIDTextBytes())
	for i, f := range l.MemberFields() {
		d := f.Digit(e.Keys[l.NumScore+i])
		base := 10
		if f.Hex {
			base = 16
		}
		s := strconv.FormatUint(d, base)
		b.WriteString(strings.Repeat("0", f.TextWidth-len(s)))
		b.WriteString(s)
		b.WriteString(l.Separator)
	}
	b.WriteString(l.IDText(e.ID))
	return l.ScoreOf(p), b.String(), nil
}

// Decode recovers the entry from a (score, member) pair, refusing pairs this layout cannot
// have produced.
func (l *Layout) Decode(score float64, member string) (Entry, error) {
	p, err := l.POf(score)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Keys: make([]uint64, len(l.Fields))}
	for i, f := range l.ScoreFields() {
		d := p / f.Weight % (f.MaxDigit + 1)
		if d > f.Span() {
			return Entry{}, rankgenrt.BadScore(score, f.Name+" digit "+strconv.FormatUint(d, 10)+" is outside its range")
		}
		e.Keys[i] = f.Key(d)
	}
	if len(member) < l.PrefixLen {
		return Entry{}, rankgenrt.BadMember(member, "shorter than the "+strconv.Itoa(l.PrefixLen)+"-byte prefix")
	}
	for i, f := range l.MemberFields() {
		text := member[f.Offset : f.Offset+f.TextWidth]
		if member[f.Offset+f.TextWidth:f.Offset+f.TextWidth+len(l.Separator)] != l.Separator {
			return Entry{}, rankgenrt.BadMember(member, "no separator after "+f.Name)
		}
		d, ok := parseDigits(text, f.Hex)
		if !ok || d > f.Span() {
			return Entry{}, rankgenrt.BadMember(member, f.Name+" text "+strconv.Quote(text)+" is not a digit of its range")
		}
		e.Keys[l.NumScore+i] = f.Key(d)
	}
	id, ok := l.idOf(member[l.PrefixLen:])
	if !ok {
		return Entry{}, rankgenrt.BadMember(member, "the "+l.IDName+" text is not an id reversed for order: asc")
	}
	e.ID = id
	if err := l.CheckID(e.ID); err != nil {
		return Entry{}, rankgenrt.BadMember(member, "bad id: "+err.Error())
	}
	return e, nil
}

// parseDigits reads fixed-width decimal or lower-case hex; it refuses signs, spaces and
// upper-case hex, which would break byte order.
func parseDigits(s string, hex bool) (uint64, bool) {
	var d uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v uint64
		switch {
		case c >= '0' && c <= '9':
			v = uint64(c - '0')
		case hex && c >= 'a' && c <= 'f':
			v = uint64(c-'a') + 10
		default:
			return 0, false
		}
		base := uint64(10)
		if hex {
			base = 16
		}
		if d > (math.MaxUint64-v)/base {
			return 0, false
		}
		d = d*base + v
	}
	return d, true
}

// Compare orders entries as Redis reads a board (ZREVRANGE): negative when a ranks before b.
// Fields compare by digit, larger first; entries equal on every field compare by id: by member
// bytes, larger first, which (the prefix being equal) is the id's bytes, or with IDOrder Asc
// smaller id first (a uint64 id by value).
func (l *Layout) Compare(a, b Entry) int {
	for i, f := range l.Fields {
		da, db := f.Digit(a.Keys[i]), f.Digit(b.Keys[i])
		if da != db {
			if da > db {
				return -1
			}
			return 1
		}
	}
	return l.compareIDs(a.ID, b.ID)
}

package runtime

import (
	"errors"
	"math"
	"strconv"
	"testing"
)

// TestAppendDataNumbers: numbers are written as their length, ':' and their canonical decimal,
// read back by DataTexts, and appended without allocating (Data.Encode runs them per value).
func TestAppendDataNumbers(t *testing.T) {
	var b []byte
	b = AppendDataUint(b, 0)
	b = AppendDataUint(b, math.MaxUint64)
	b = AppendDataInt(b, math.MinInt64)
	b = AppendDataInt(b, 42)
	if want := "1:020:1844674407370955161520:-92233720368547758082:42"; string(b) != want {
		t.Fatalf("appended %q; want %q", b, want)
	}
	texts, err := DataTexts(string(b), 4)
	if err != nil || texts[1] != "18446744073709551615" || texts[2] != "-9223372036854775808" {
		t.Fatalf("DataTexts = %q, %v", texts, err)
	}
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() {
		buf = AppendDataInt(AppendDataUint(buf[:0], math.MaxUint64), math.MinInt64)
	}); n != 0 {
		t.Errorf("appending two numbers allocates %v times; want 0", n)
	}
}

// TestCheckDataText: valid UTF-8 (empty, NUL, four-byte characters) passes; anything else is a
// *TextError (ErrOutOfRange) naming the field, the quoted value and the first bad byte.
func TestCheckDataText(t *testing.T) {
	for _, ok := range []string{"", "\x00", "Zoë 😀", "\u2028"} {
		if err := CheckDataText("Name", ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for text, at := range map[string]int{"\xff": 1, "Zo\xc3": 3, "ab\xed\xa0\x80": 3, "😀\xbf": 5} {
		err := CheckDataText("Name", text)
		var te *TextError
		if !errors.Is(err, ErrOutOfRange) || !errors.As(err, &te) || te.At != at || te.Field != "Name" || te.Value != strconv.Quote(text) {
			t.Errorf("%q: %#v; want a *TextError at byte %d", text, err, at)
		}
	}
}

// TestDataTextsAppended: data written by a schema with fewer data fields gives fewer texts (the
// reader's zero for the rest), data written by one with more gives the first n, and damaged
// data anywhere, in the extra fields too, is ErrBadData.
func TestDataTextsAppended(t *testing.T) {
	for _, c := range []struct {
		data string
		want []string
	}{
		{"2:ab", []string{"ab"}},
		{"2:ab1:7", []string{"ab", "7"}},
		{"2:ab1:70:", []string{"ab", "7"}},
		{"2:ab1:73:xyz1:1", []string{"ab", "7"}},
	} {
		got, err := DataTexts(c.data, 2)
		if err != nil || strconv.Quote(fmtTexts(got)) != strconv.Quote(fmtTexts(c.want)) {
			t.Errorf("DataTexts(%q, 2) = %q, %v; want %q", c.data, got, err, c.want)
		}
	}
	for _, bad := range []string{"2:a", "2:ab1", "2:ab1:7x", "2:ab1:73:xy", "2:ab1:701:x", "x"} {
		if got, err := DataTexts(bad, 2); !errors.Is(err, ErrBadData) {
			t.Errorf("DataTexts(%q, 2) = %q, %v; want ErrBadData", bad, got, err)
		}
	}
}

func fmtTexts(ts []string) string {
	s := ""
	for _, t := range ts {
		s += strconv.Itoa(len(t)) + ":" + t + "|"
	}
	return s
}

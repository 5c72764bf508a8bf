package runtime

import (
	"math"
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

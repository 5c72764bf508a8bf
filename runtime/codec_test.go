package runtime

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestPutParseHexDec(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 20000 {
		v := rng.Uint64() >> rng.IntN(64)
		for _, hex := range []bool{true, false} {
			base, width := 10, len(strconv.FormatUint(v, 10))
			if hex {
				base, width = 16, len(strconv.FormatUint(v, 16))
			}
			width += rng.IntN(3) // zero padding
			if hex && width > 16 || !hex && width > 20 {
				continue
			}
			buf := make([]byte, width)
			parse := ParseDec
			if hex {
				PutHex(buf, v)
				parse = ParseHex
			} else {
				PutDec(buf, v)
			}
			want := strings.Repeat("0", width-len(strconv.FormatUint(v, base))) + strconv.FormatUint(v, base)
			if string(buf) != want {
				t.Fatalf("Put(%d, base %d, width %d) = %q, want %q", v, base, width, buf, want)
			}
			if got, ok := parse(string(buf)); !ok || got != v {
				t.Fatalf("Parse(%q) = %d, %v, want %d", buf, got, ok, v)
			}
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, s := range []string{"", "A", "0A", "ff ", " f", "+1", "-1", "0x1", "g", "11111111111111111"} {
		if _, ok := ParseHex(s); ok {
			t.Errorf("ParseHex(%q) accepted", s)
		}
	}
	if v, ok := ParseHex("ffffffffffffffff"); !ok || v != math.MaxUint64 {
		t.Errorf("ParseHex(16 f) = %d, %v", v, ok)
	}
	for _, s := range []string{"", "a", "1 ", "+1", "-1", "1e3", "18446744073709551616", "99999999999999999999", "000000000000000000001"} {
		if _, ok := ParseDec(s); ok {
			t.Errorf("ParseDec(%q) accepted", s)
		}
	}
	if v, ok := ParseDec("18446744073709551615"); !ok || v != math.MaxUint64 {
		t.Errorf("ParseDec(max) = %d, %v", v, ok)
	}
	for _, s := range []string{"", "00", "01", "007", "+7", "18446744073709551616"} {
		if _, ok := ParseID(s); ok {
			t.Errorf("ParseID(%q) accepted", s)
		}
	}
	for _, s := range []string{"0", "7", "10", "18446744073709551615"} {
		if v, ok := ParseID(s); !ok || strconv.FormatUint(v, 10) != s {
			t.Errorf("ParseID(%q) = %d, %v", s, v, ok)
		}
	}
}

func TestCompareDecimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	pick := func() uint64 {
		switch rng.IntN(3) {
		case 0:
			return rng.Uint64N(1000)
		case 1:
			return math.MaxUint64 - rng.Uint64N(3)
		}
		return rng.Uint64() >> rng.IntN(64)
	}
	for range 20000 {
		a, b := pick(), pick()
		if got, want := CompareDecimal(a, b), strings.Compare(strconv.FormatUint(a, 10), strconv.FormatUint(b, 10)); got != want {
			t.Fatalf("CompareDecimal(%d, %d) = %d, want %d", a, b, got, want)
		}
	}
	if CompareDecimal(9, 10) != 1 {
		t.Error("9 should sort after 10 as text")
	}
	if n := testing.AllocsPerRun(100, func() { CompareDecimal(math.MaxUint64, 12345) }); n != 0 {
		t.Errorf("CompareDecimal allocates %v times", n)
	}
}

func TestCompareBool(t *testing.T) {
	if CompareBool(false, true) != -1 || CompareBool(true, false) != 1 || CompareBool(true, true) != 0 || CompareBool(false, false) != 0 {
		t.Error("CompareBool must order false before true")
	}
}

func TestTimeRangeError(t *testing.T) {
	err := TimeRangeError("At", time.Date(2030, 1, 2, 3, 4, 5, 6000, time.FixedZone("x", 3600)), "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z")
	var re *RangeError
	if !errors.Is(err, ErrOutOfRange) || !errors.As(err, &re) || re.Field != "At" || re.Value != "2030-01-02T02:04:05.000006Z" {
		t.Errorf("TimeRangeError = %#v", err)
	}
}

package runtime

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestSideKeys(t *testing.T) {
	for _, c := range []struct{ key, idx, tag string }{
		{"lb", "{lb}:idx", "lb"},
		{"game:{42}:board", "game:{42}:board:idx", "42"},
		{"{}x", "{}x:idx", "{}x"},   // an empty tag hashes the whole key; it contains "}", so it is not wrapped
		{"a{b", "{a{b}:idx", "a{b"}, // no closing brace: the whole key is hashed, and wrapping keeps that
		{"a}b", "a}b:idx", "a}b"},
	} {
		if got := IndexKey(c.key); got != c.idx {
			t.Errorf("IndexKey(%q) = %q, want %q", c.key, got, c.idx)
		}
		if got := HashTag(c.key); got != c.tag {
			t.Errorf("HashTag(%q) = %q, want %q", c.key, got, c.tag)
		}
		// Where the key is wrapped or tagged, the side key hashes exactly like the key.
		if c.key != "{}x" && c.key != "a}b" && HashTag(IndexKey(c.key)) != HashTag(c.key) {
			t.Errorf("IndexKey(%q) = %q hashes on %q, the key on %q", c.key, IndexKey(c.key), HashTag(IndexKey(c.key)), HashTag(c.key))
		}
	}
	if MetaKey("lb") != "{lb}:meta" {
		t.Errorf("MetaKey = %q", MetaKey("lb"))
	}
}

func TestParseReply(t *testing.T) {
	for _, c := range []struct {
		msg  string
		want error
	}{
		{"RANKGEN_OVERFLOW field=Points delta=5 min=0 max=9", ErrOverflow},
		{"RANKGEN_OUT_OF_RANGE field=ReachedAt value=1ms min=a max=b", ErrOutOfRange},
		{"RANKGEN_LAYOUT_MISMATCH board has layout x", ErrLayoutMismatch},
		{"RANKGEN_NOT_INDEXED the board has entries", ErrNotIndexed},
		{"RANKGEN_BAD_SCORE 1.5 is not a score script: abc, on @user_script:9.", ErrBadScore},
		{"RANKGEN_BAD_MEMBER x", ErrBadMember},
		{"RANKGEN_NOT_FOUND id", ErrNotFound},
	} {
		err, ok := ParseReply(c.msg)
		if !ok || !errors.Is(err, c.want) {
			t.Errorf("ParseReply(%q) = %v, %v; want %v", c.msg, err, ok, c.want)
		}
	}
	err, _ := ParseReply("RANKGEN_OUT_OF_RANGE field=ReachedAt value=1ms min=a max=b")
	var re *RangeError
	if !errors.As(err, &re) || re.Field != "ReachedAt" || re.Value != "1970-01-01T00:00:00.001Z" || re.Min != "a" || re.Max != "b" {
		t.Errorf("OUT_OF_RANGE = %#v", err)
	}
	// A stamp out of range comes as whole units since the Unix epoch and reads as RFC 3339, like
	// the range's ends; other values stay as sent.
	for msg, want := range map[string]string{
		"value=1795384169s":        "2026-11-22T21:49:29Z",
		"value=1795384169123ms":    "2026-11-22T21:49:29.123Z",
		"value=1795384169123456us": "2026-11-22T21:49:29.123456Z",
		"value=-5":                 "-5",
		"value=digit:12":           "digit:12",
		"value=12xs":               "12xs",
	} {
		err, _ := ParseReply("RANKGEN_OUT_OF_RANGE field=ReachedAt " + msg + " min=2026-01-01T00:00:00Z max=2026-01-02T12:24:31Z")
		if !errors.As(err, &re) || re.Value != want {
			t.Errorf("OUT_OF_RANGE %s: value %q; want %q", msg, re.Value, want)
		}
	}
	err, _ = ParseReply("RANKGEN_BAD_SCORE 1.5 script: abc, on @user_script:9.")
	if se := (*ScriptError)(nil); !errors.As(err, &se) || se.Detail != "1.5" {
		t.Errorf("BAD_SCORE detail not trimmed: %v", err)
	}
	for _, msg := range []string{"ERR unknown", "RANKGEN_NOPE x", "NOSCRIPT No matching script"} {
		if _, ok := ParseReply(msg); ok {
			t.Errorf("ParseReply(%q) recognised", msg)
		}
	}
}

func TestExpiry(t *testing.T) {
	if !(Expiry{}).IsZero() {
		t.Error("zero Expiry not IsZero")
	}
	if m, ms := TTL(1500 * time.Microsecond).Args(); m != "px" || ms != 2 {
		t.Errorf("TTL(1.5ms) = %s %d; want px 2 (rounded up)", m, ms)
	}
	if _, ms := TTL(0).Args(); ms != 1 {
		t.Errorf("TTL(0) = %d ms; want 1", ms)
	}
	at := time.UnixMilli(1795000000123)
	if m, ms := ExpireAt(at).Args(); m != "pxat" || ms != 1795000000123 {
		t.Errorf("ExpireAt = %s %d", m, ms)
	}
}

func TestReplies(t *testing.T) {
	items, err := Items([]any{"12", "m", "", "", "RANKGEN_OVERFLOW field=P", "", "", "", "12", "m2", "12", "m"}, 3)
	if err != nil || items[0].P != 12 || items[0].Member != "m" || items[0].Existed || !items[0].Changed() ||
		!errors.Is(items[1].Err, ErrOverflow) || !items[2].Existed || items[2].PriorMember != "m" || !items[2].Changed() {
		t.Fatalf("Items = %+v, %v", items, err)
	}
	bare, err := BareItems([]any{"12", "12", "RANKGEN_OVERFLOW field=P", ""}, 2)
	if err != nil || bare[0].P != 12 || bare[0].Member != "" || !bare[0].Existed || bare[0].Changed() || !errors.Is(bare[1].Err, ErrOverflow) {
		t.Fatalf("BareItems = %+v, %v", bare, err)
	}
	if max, err := BareItems([]any{"4611686018427387903", ""}, 1); err != nil || max[0].P != 1<<62-1 {
		t.Errorf("BareItems(2^62 - 1) = %+v, %v", max, err)
	}
	// P below 2^53 replies as an integer; a bits62 layout's as text.
	if ints, err := BareItems([]any{int64(13), int64(12), int64(0), ""}, 2); err != nil || ints[0].P != 13 || !ints[0].Existed ||
		ints[0].PriorP != 12 || !ints[0].Changed() || ints[1].P != 0 || ints[1].Existed {
		t.Errorf("BareItems of integer replies = %+v, %v", ints, err)
	}
	if ints, err := Items([]any{int64(13), "m2", int64(13), "m"}, 1); err != nil || ints[0].P != 13 || ints[0].PriorP != 13 || !ints[0].Changed() {
		t.Errorf("Items of integer replies = %+v, %v", ints, err)
	}
	for _, bad := range [][]any{{"", ""}, {int64(-1), ""}, {int64(1 << 62), ""}, {int64(12), int64(-12)}, {12, ""}, {"1.5", ""}, {"4611686018427387904", ""}, {"1e+15", ""}, {"12", "x"}, {"12", "RANKGEN_OVERFLOW field=P"}, {"12"}, {}} {
		if _, err := BareItems(bad, 1); !errors.Is(err, ErrBadReply) {
			t.Errorf("BareItems(%v) = %v; want ErrBadReply", bad, err)
		}
	}
	if items, err := BareItems([]any{"RANKGEN_NEWER_CODE x", ""}, 1); err != nil || !errors.Is(items[0].Err, ErrBadReply) {
		t.Errorf("BareItems of an unknown error code = %+v, %v; want an item error matching ErrBadReply", items, err)
	}
	for _, bad := range [][]any{
		{"", "m", "", ""},        // no error text, no P
		{1.5, "m", "", ""},       // P neither text nor an integer
		{"-1", "m", "", ""},      // not a whole number
		{"12", int64(2), "", ""}, // member not a string
		{"12", "m", "3", ""},     // a prior P without its member
		{"12", "m", "", "m"},     // a prior member without its P
		{"12", "m"},              // short
	} {
		if _, err := Items(bad, 1); !errors.Is(err, ErrBadReply) {
			t.Errorf("Items(%v) = %v; want ErrBadReply", bad, err)
		}
	}
	huge := strings.Repeat("9", 1<<20)
	if _, err := BareItems([]any{huge, ""}, 1); !errors.Is(err, ErrBadReply) || len(err.Error()) > 200 {
		t.Errorf("BareItems of a 1 MiB P: error of %d bytes (%.80s…); want a short ErrBadReply", len(err.Error()), err)
	}
	if ps, err := Priors([]any{int64(1), "", "", int64(0), "7", "m"}, 2); err != nil || !ps[0].Changed || ps[0].Found ||
		ps[1].Changed || !ps[1].Found || ps[1].Score != 7 || ps[1].Member != "m" {
		t.Errorf("Priors = %+v, %v", ps, err)
	}
	if ps, err := PriorsData([]any{int64(0), "7", "m", "d"}, 1); err != nil || !ps[0].Found || ps[0].Data != "d" {
		t.Errorf("PriorsData = %+v, %v", ps, err)
	}
	for _, bad := range []any{[]any{int64(2), "", ""}, []any{"1", "", ""}, []any{int64(1), "7", int64(3)}, []any{int64(1), ""}, []any{}, "1", nil} {
		if _, err := Priors(bad, 1); !errors.Is(err, ErrBadReply) {
			t.Errorf("Priors(%#v) = %v; want ErrBadReply", bad, err)
		}
	}
	if _, err := PriorsData([]any{int64(1), "7", "m", int64(3)}, 1); !errors.Is(err, ErrBadReply) {
		t.Errorf("PriorsData with a data integer = %v; want ErrBadReply", err)
	}
	for _, bad := range []any{"1", []any{}, []any{"1", "a"}, []any{int64(1), "a"}, []any{int64(1), []any{"m"}}, []any{int64(1), []any{int64(3), "1"}}} {
		if _, _, err := Window(bad); !errors.Is(err, ErrBadReply) {
			t.Errorf("Window(%#v) = %v; want ErrBadReply", bad, err)
		}
	}
	for _, bad := range []any{"1", []any{"1"}, []any{"1", int64(2)}} {
		if _, _, err := ScoreMember(bad); !errors.Is(err, ErrBadReply) {
			t.Errorf("ScoreMember(%#v) = %v; want ErrBadReply", bad, err)
		}
	}
	if _, err := Int("3", nil); !errors.Is(err, ErrBadReply) {
		t.Errorf("Int(\"3\") = %v; want ErrBadReply", err)
	}
	start, ps, err := Window([]any{int64(3), []any{"a", "9007199254740991", "b", "0.1"}})
	if err != nil || start != 3 || ps[0] != (Pair{Member: "a", Score: 1<<53 - 1}) || ps[1] != (Pair{Member: "b", Score: 0.1}) {
		t.Fatalf("Window = %d %+v %v", start, ps, err)
	}
	for f, want := range map[float64]string{0: "0", 1 << 53: "9007199254740992", 0.00001234: "0.00001234", 1e21: "1000000000000000000000"} {
		if got := FormatScore(f); got != want {
			t.Errorf("FormatScore(%v) = %s, want %s", f, got, want)
		}
	}
	if DigitText(255, 4, true) != "00ff" || DigitText(42, 5, false) != "00042" {
		t.Error("DigitText")
	}
}

// TestLayoutMismatchQuotesStored: the value a board's key held where its fingerprint belongs
// is whatever another writer put there (terminal escapes, line breaks, kilobytes): the
// LAYOUT_MISMATCH error quotes and cuts it, from a script's reply and from CheckFingerprint.
func TestLayoutMismatchQuotesStored(t *testing.T) {
	hostile := "\x1b[31m" + strings.Repeat("x", 3000) + "\r\n"
	const fp = "0123456789abcdef"
	fromScript, ok := ParseReply("RANKGEN_LAYOUT_MISMATCH board has layout " + hostile + ", this code writes layout " + fp)
	if !ok {
		t.Fatal("a LAYOUT_MISMATCH reply is not parsed")
	}
	_, fromRead := CheckFingerprint(redis.NewStringResult(hostile, nil), fp)
	for name, err := range map[string]error{"script reply": fromScript, "CheckFingerprint": fromRead} {
		msg := err.Error()
		if !errors.Is(err, ErrLayoutMismatch) || strings.ContainsAny(msg, "\x1b\r\n") || len(msg) > 200+len("; "+layoutFix) ||
			!strings.Contains(msg, "(3007 bytes)") || !strings.HasSuffix(msg, "layout "+fp+"; "+layoutFix) {
			t.Errorf("%s: %q; want ErrLayoutMismatch with the stored value quoted and cut", name, msg)
		}
	}
	// A fingerprint stored by another layout reads as a quoted fingerprint.
	if _, err := CheckFingerprint(redis.NewStringResult("fedcba9876543210", nil), fp); err == nil ||
		!strings.Contains(err.Error(), `layout "fedcba9876543210", this code reads layout `+fp) {
		t.Errorf("another layout: %v", err)
	}
}

// TestLayoutMismatchSaysTheFix: a board's refusal of another layout says what to do (rankgen
// migrate, the online migration guide, or a new key); a migration's own refusal, which names
// its key, does not send it to migrate.
func TestLayoutMismatchSaysTheFix(t *testing.T) {
	for _, reply := range []string{
		"RANKGEN_LAYOUT_MISMATCH board has layout f32690611a53ed90, this code writes layout b135a25450957a9a",
		"RANKGEN_LAYOUT_MISMATCH board has layout f32690611a53ed90, this code reads layout b135a25450957a9a",
		"RANKGEN_LAYOUT_MISMATCH the board data has stored format f32690611a53ed90, this code writes b135a25450957a9a",
	} {
		err := mustReply(t, reply)
		for _, want := range []string{`"f32690611a53ed90"`, "b135a25450957a9a", "rankgen migrate", "docs/online-migration.md", "new key"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q does not say %q", err, want)
			}
		}
	}
	if err := mustReply(t, "RANKGEN_LAYOUT_MISMATCH lb has layout x, the migration writes layout y"); strings.Contains(err.Error(), "rankgen migrate") {
		t.Errorf("a migration's refusal: %q", err)
	}
}

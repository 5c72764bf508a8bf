package layout_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestIDOrderAsc: with id order: asc, a smaller id's member text is larger (so it ranks
// first in a descending read), for string ids of every byte and length (an id before every
// longer id it begins) and for uint64 ids by value; the text decodes back, the runtime's
// codec writes and reads the same texts as the interpreted one, and every other text is refused
// by both.
func TestIDOrderAsc(t *testing.T) {
	str := mustParse(t, "package: p\nid: {name: ID, max_bytes: 8, order: asc}\nfields:\n  - {name: A, type: bool, order: desc}\n")
	num := mustParse(t, "package: p\nid: {name: ID, type: uint64, order: asc}\nfields:\n  - {name: A, type: bool, order: desc}\n")
	rng := rand.New(rand.NewPCG(7, 8))

	ids := []string{"a", "a\x00", "a\x00\x00", "a\x01", "a\x02", "a\xfd", "a\xfe", "a\xff", "b", "\x00", "\x01", "\xff", "\xff\xff", "\xfe\x01"}
	for range 3000 {
		b := make([]byte, 1+rng.IntN(8))
		for i := range b {
			b[i] = []byte{0, 1, 2, 0x7f, 0xfd, 0xfe, 0xff, byte(rng.IntN(256))}[rng.IntN(8)]
		}
		ids = append(ids, string(b))
	}
	checkReversed(t, str, ids, func(a, b string) int { return bytes.Compare([]byte(a), []byte(b)) },
		func(id string) string { return string(rankgenrt.AppendReversedID(nil, id)) },
		rankgenrt.ReversedIDOf)

	nums := []string{"0", "1", "9", "10", "11", "99", "100", "18446744073709551614", "18446744073709551615"}
	for range 3000 {
		nums = append(nums, strconv.FormatUint(rng.Uint64()>>rng.IntN(64), 10))
	}
	value := func(s string) uint64 { n, _ := strconv.ParseUint(s, 10, 64); return n }
	checkReversed(t, num, nums, func(a, b string) int { return cmpU(value(a), value(b)) },
		func(id string) string { return string(rankgenrt.AppendReversedUint(nil, value(id))) },
		func(text string) (string, bool) {
			n, ok := rankgenrt.ReversedUintOf(text)
			return strconv.FormatUint(n, 10), ok
		})
	for _, text := range []string{"", "1", "8155325592629044838", "81553255926290448383", "815532559262904483840", "9999999999999999999a", "-9999999999999999999"} {
		if _, err := num.Decode(0, text); err == nil {
			t.Errorf("uint64 text %q decoded", text)
		}
	}
	if got := num.IDText("18446744073709551615"); got != "81553255926290448384" {
		t.Errorf("the largest uint64's text is %q", got)
	}
}

// checkReversed checks the id texts of l (order: asc) on ids, whose ascending order is cmp,
// against the runtime's writer and reader, and refuses damaged texts.
func checkReversed(t *testing.T, l *layout.Layout, ids []string, cmp func(a, b string) int, write func(string) string, read func(string) (string, bool)) {
	t.Helper()
	for _, a := range ids {
		text := l.IDText(a)
		if w := write(a); w != text {
			t.Fatalf("id %q: runtime writes %q, interpreted %q", a, w, text)
		}
		if e, err := l.Decode(0, text); err != nil || e.ID != a {
			t.Fatalf("id %q: text %q decodes to %q, %v", a, text, e.ID, err)
		}
		if back, ok := read(text); !ok || back != a {
			t.Fatalf("id %q: runtime reads text %q as %q, %v", a, text, back, ok)
		}
		for _, damaged := range []string{text[:len(text)-1], text + "\xff", text + "0", "\xff" + text, text[1:]} {
			e, err := l.Decode(0, damaged)
			back, ok := read(damaged)
			ok = ok && back != "" // the runtime reads the text; generated Decode checks the id's length after
			if err == nil && l.IDText(e.ID) != damaged || ok != (err == nil) || ok && back != e.ID {
				t.Fatalf("text %q: interpreted %q, %v; runtime %q, %v (only texts an id writes decode)", damaged, e.ID, err, back, ok)
			}
		}
	}
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, cmp)
	sorted = slices.Compact(sorted)
	for i := 1; i < len(sorted); i++ {
		a, b := sorted[i-1], sorted[i]
		if l.IDText(a) <= l.IDText(b) {
			t.Fatalf("ids %q < %q but texts %q ≤ %q: the smaller id would not rank first", a, b, l.IDText(a), l.IDText(b))
		}
		ea, eb := layout.Entry{ID: a, Keys: []uint64{0}}, layout.Entry{ID: b, Keys: []uint64{0}}
		if l.Compare(ea, eb) >= 0 {
			t.Fatalf("Compare(%q, %q) ≥ 0", a, b)
		}
	}
}

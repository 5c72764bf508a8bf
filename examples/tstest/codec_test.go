package tstest

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/tsemit"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// vectorCase is one (score, member) pair, and data, given to the TypeScript module.
type vectorCase struct {
	Score  string  `json:"score"`  // the double's bits, 16 hex digits
	Member string  `json:"member"` // hex
	Data   *string `json:"data"`   // hex; nil on a layout without data
}

type vectors struct {
	Module string       `json:"module"`
	Cases  []vectorCase `json:"cases"`
	Pairs  [][2]int     `json:"pairs"`
}

// caseResult is what the module answered for a case, as the harness prints it; the Go test
// builds the same from Go's answers.
type caseResult struct {
	Entry     map[string]any `json:"entry,omitempty"`
	Score     string         `json:"score,omitempty"`
	Member    string         `json:"member,omitempty"`
	Error     string         `json:"error,omitempty"`
	Data      map[string]any `json:"data,omitempty"`
	DataBytes string         `json:"dataBytes,omitempty"`
	DataError string         `json:"dataError,omitempty"`
}

type codecResult struct {
	Cases  []caseResult      `json:"cases"`
	Pairs  []int             `json:"pairs"`
	Ranges map[string]string `json:"ranges"`
}

const (
	validCases   = 300 // random entries of each example
	tiedCases    = 40  // entries equal to an earlier one on every field, with another id
	damagedCases = 200 // pairs and data near valid ones, which the layout may or may not have written
)

// TestCodecVectors gives the TypeScript module of every example (and of the edge and random
// schemas of extraLayouts) the pairs Go encodes for random
// entries (and their data), pairs near them that Go refuses or accepts, and pairs of entries to
// order. The module must decode each as Go does (the same values, or the same refusal), encode
// it back to the same score bits and member bytes, order every pair as Go's Compare, and refuse
// a value just past each field's range.
func TestCodecVectors(t *testing.T) {
	dist := buildModules(t)
	for _, ex := range examples() {
		t.Run(ex.Name, func(t *testing.T) {
			l := ex.Layout(t)
			h := fnv.New64a()
			h.Write([]byte(ex.Name))
			rng := rand.New(rand.NewPCG(20261128, h.Sum64()))
			v, want := vectorsOf(t, &ex, l, rng)
			v.Module = modulePath(dist, ex)
			checkVectors(t, dist, v, want)
		})
	}
	for _, l := range extraLayouts(t) {
		t.Run(l.Stem(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(20261128, uint64(len(l.File))))
			v, want := vectorsOf(t, nil, l, rng)
			v.Module = filepath.Join(dist, l.Stem()+".rankgen.js")
			checkVectors(t, dist, v, want)
		})
	}
}

// checkVectors runs the module on v and compares its answers with Go's, want.
func checkVectors(t *testing.T, dist string, v vectors, want codecResult) {
	t.Helper()
	var got codecResult
	runHarness(t, dist, "codec", v, &got)
	if len(got.Cases) != len(want.Cases) || len(got.Pairs) != len(want.Pairs) {
		t.Fatalf("harness answered %d cases and %d pairs, want %d and %d", len(got.Cases), len(got.Pairs), len(want.Cases), len(want.Pairs))
	}
	bad := 0
	for i := range want.Cases {
		if !reflect.DeepEqual(got.Cases[i], want.Cases[i]) && bad < 5 {
			bad++
			t.Errorf("case %d (score %s, member %s):\n TypeScript: %+v\n Go:         %+v", i, v.Cases[i].Score, v.Cases[i].Member, got.Cases[i], want.Cases[i])
		}
	}
	for i := range want.Pairs {
		if got.Pairs[i] != want.Pairs[i] && bad < 10 {
			bad++
			p := v.Pairs[i]
			t.Errorf("compare(case %d, case %d) = %d in TypeScript, %d in Go", p[0], p[1], got.Pairs[i], want.Pairs[i])
		}
	}
	if !reflect.DeepEqual(got.Ranges, want.Ranges) {
		t.Errorf("values past each field's range: TypeScript %v, want %v", got.Ranges, want.Ranges)
	}
}

// vectorsOf draws an example's vectors and what Go answers for each.
func vectorsOf(t *testing.T, ex *exampleboards.Example, l *layout.Layout, rng *rand.Rand) (vectors, codecResult) {
	var v vectors
	want := codecResult{Ranges: map[string]string{}}
	var entries []layout.Entry // of the cases whose entry TypeScript decodes (its id is text)
	var caseOf []int
	add := func(c vectorCase, r caseResult) {
		v.Cases = append(v.Cases, c)
		want.Cases = append(want.Cases, r)
	}
	for i := 0; i < validCases+tiedCases; i++ {
		e := oracle.RandomEntry(l, rng)
		if i >= validCases && len(entries) > 0 { // a tie on every field: the ids decide
			e.Keys = entries[rng.IntN(len(entries))].Keys
		}
		score, member, err := l.Encode(e)
		if err != nil {
			t.Fatalf("Encode(%v): %v", e, err)
		}
		if ex != nil {
			checkGenerated(t, *ex, l, e, score, member)
		}
		c := vectorCase{Score: scoreHex(score), Member: hex.EncodeToString([]byte(member))}
		r := entryResult(l, e, score, member)
		if l.HasData() {
			c.Data, r = dataCase(l, oracle.RandomData(l, rng), r)
		}
		if r.Error == "" {
			entries, caseOf = append(entries, e), append(caseOf, len(v.Cases))
		}
		add(c, r)
	}
	for range damagedCases {
		e := oracle.RandomEntry(l, rng)
		score, member, err := l.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		score, member = oracle.Damage(rng, l, score, member)
		c := vectorCase{Score: scoreHex(score), Member: hex.EncodeToString([]byte(member))}
		var r caseResult
		if d, err := l.Decode(score, member); err != nil {
			r.Error = code(t, err)
		} else {
			r = entryResult(l, d, score, member)
		}
		if l.HasData() {
			stored, err := l.EncodeData(oracle.RandomData(l, rng))
			if err != nil {
				t.Fatal(err)
			}
			c.Data, r = storedDataCase(t, l, damageData(rng, stored), r)
		}
		add(c, r)
	}
	if len(entries) < 2 {
		t.Fatalf("only %d entries with text ids", len(entries))
	}
	for range 300 {
		i, j := rng.IntN(len(entries)), rng.IntN(len(entries))
		if rng.IntN(4) == 0 { // the tied entries, against the entry they tie
			i = len(entries) - 1 - rng.IntN(min(tiedCases, len(entries)))
		}
		v.Pairs = append(v.Pairs, [2]int{caseOf[i], caseOf[j]})
		want.Pairs = append(want.Pairs, l.Compare(entries[i], entries[j]))
	}
	for _, f := range l.Fields {
		if f.Kind != layout.Bool {
			want.Ranges[f.Name] = "OUT_OF_RANGE"
		}
	}
	return v, want
}

// checkGenerated checks that the generated Go package encodes e as the interpreted codec does:
// the vectors are Go's, whichever Go encodes them.
func checkGenerated(t *testing.T, ex exampleboards.Example, l *layout.Layout, e layout.Entry, score float64, member string) {
	t.Helper()
	g := reflect.New(ex.Codec.Entry())
	oracle.ToGenerated(l, e, g.Interface())
	gs, gm, err := ex.Codec.Encode(g.Elem().Interface())
	if err != nil || math.Float64bits(gs) != math.Float64bits(score) || gm != member {
		t.Fatalf("generated Encode(%v) = %v, %q, %v; interpreted %v, %q", e, gs, gm, err, score, member)
	}
}

func scoreHex(score float64) string { return fmt.Sprintf("%016x", math.Float64bits(score)) }

// entryResult is what TypeScript answers for a pair Go decodes to e: e, and the same pair
// encoded again, or a refusal of an id that is not UTF-8 text (TypeScript ids are strings).
func entryResult(l *layout.Layout, e layout.Entry, score float64, member string) caseResult {
	if l.IDType == layout.IDString && !utf8.ValidString(e.ID) {
		return caseResult{Error: "BAD_MEMBER"}
	}
	return caseResult{Entry: entryJSON(l, e), Score: scoreHex(score), Member: hex.EncodeToString([]byte(member))}
}

// entryJSON is e as the harness prints a decoded entry: properties named by tsemit.Props,
// whole numbers in decimal, enums by name.
func entryJSON(l *layout.Layout, e layout.Entry) map[string]any {
	props, _ := tsemit.Props(l)
	out := map[string]any{props[l.IDName]: e.ID}
	for i, f := range l.Fields {
		out[props[f.Name]] = valueJSON(f, e.Keys[i])
	}
	return out
}

func valueJSON(f *layout.Field, key uint64) any {
	switch f.Kind {
	case layout.Bool:
		return key != 0
	case layout.Enum:
		return f.Values[key]
	case layout.Int, layout.Time:
		return strconv.FormatInt(layout.IntOf(key), 10)
	}
	return strconv.FormatUint(key, 10)
}

// dataCase is a case's stored data for vals, and what TypeScript answers for it.
func dataCase(l *layout.Layout, vals []layout.DataValue, r caseResult) (*string, caseResult) {
	stored, err := l.EncodeData(vals)
	if err != nil {
		panic(err)
	}
	s := hex.EncodeToString([]byte(stored))
	r.Data, r.DataBytes = dataJSON(l, vals), s
	return &s, r
}

// storedDataCase is a case of stored data that Go may refuse, and what TypeScript answers for
// it: Go's values (a string that is not UTF-8, which Go reads as it is, with U+FFFD in place of
// its bad bytes, as a JavaScript string holds it) and those values stored again, or the refusal.
func storedDataCase(t *testing.T, l *layout.Layout, stored string, r caseResult) (*string, caseResult) {
	s := hex.EncodeToString([]byte(stored))
	vals, err := l.DecodeData(stored)
	if err != nil {
		r.DataError = code(t, err)
		return &s, r
	}
	for i, f := range l.Data {
		if f.Kind == layout.String {
			vals[i].Text = replaceBadUTF8(vals[i].Text)
		}
	}
	again, err := l.EncodeData(vals)
	if err != nil { // a replaced string longer than its max_bytes
		r.DataError = code(t, err)
		return &s, r
	}
	r.Data, r.DataBytes = dataJSON(l, vals), hex.EncodeToString([]byte(again))
	return &s, r
}

func dataJSON(l *layout.Layout, vals []layout.DataValue) map[string]any {
	_, props := tsemit.Props(l)
	out := map[string]any{}
	for i, f := range l.Data {
		if f.Kind == layout.String {
			out[props[f.Name]] = vals[i].Text
			continue
		}
		out[props[f.Name]] = valueJSON(f, vals[i].Key)
	}
	return out
}

// damageData changes stored data a little: a byte replaced, cut, inserted or added.
func damageData(rng *rand.Rand, s string) string {
	b := []byte(s)
	switch rng.IntN(6) {
	case 0:
		b = b[:rng.IntN(len(b)+1)]
	case 1, 2:
		if len(b) > 0 {
			b[rng.IntN(len(b))] = "0123456789:-a\xff\x80"[rng.IntN(15)]
		}
	case 3:
		i := rng.IntN(len(b) + 1)
		b = append(b[:i], append([]byte{"09:-"[rng.IntN(4)]}, b[i:]...)...)
	case 4:
		b = append(b, []string{"3:abc", "1:0", "0:", "2:\xc3\xa9", ":", "01:x"}[rng.IntN(6)]...)
	}
	return string(b)
}

// replaceBadUTF8 decodes s as a WHATWG UTF-8 decoder does (Node's Buffer.toString): each
// maximal bad subsequence becomes one U+FFFD.
func replaceBadUTF8(s string) string {
	var out []byte
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			out = append(out, c)
			i++
			continue
		}
		need, lower, upper := 0, byte(0x80), byte(0xbf)
		switch {
		case c >= 0xc2 && c <= 0xdf:
			need = 1
		case c >= 0xe0 && c <= 0xef:
			need = 2
			if c == 0xe0 {
				lower = 0xa0
			} else if c == 0xed {
				upper = 0x9f
			}
		case c >= 0xf0 && c <= 0xf4:
			need = 3
			if c == 0xf0 {
				lower = 0x90
			} else if c == 0xf4 {
				upper = 0x8f
			}
		default:
			out = utf8.AppendRune(out, utf8.RuneError)
			i++
			continue
		}
		j, ok := i+1, true
		for k := 0; k < need; k++ {
			if j >= len(s) || s[j] < lower || s[j] > upper {
				ok = false
				break
			}
			lower, upper = 0x80, 0xbf
			j++
		}
		if !ok {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, s[i:j]...)
		}
		i = j
	}
	return string(out)
}

// code is the RankgenError code TypeScript gives for Go's error err.
func code(t *testing.T, err error) string {
	for _, c := range []struct {
		sentinel error
		code     string
	}{{rankgenrt.ErrBadScore, "BAD_SCORE"}, {rankgenrt.ErrBadMember, "BAD_MEMBER"}, {rankgenrt.ErrBadData, "BAD_DATA"}, {rankgenrt.ErrOutOfRange, "OUT_OF_RANGE"}} {
		if errors.Is(err, c.sentinel) {
			return c.code
		}
	}
	t.Fatalf("Go error of no known kind: %v", err)
	return ""
}

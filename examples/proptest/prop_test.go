package proptest

import (
	"cmp"
	"errors"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// entriesPerExample is how many random entries each example's codec is checked on.
const entriesPerExample = 20000

func TestExamplesAgainstOracle(t *testing.T) {
	n := entriesPerExample
	if testing.Short() {
		n = 2000
	}
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) { ex.run(t, n) })
	}
}

func rngFor(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(h.Sum64(), 2026))
}

// item is one entry as both codecs see it, with its encoding.
type item[E any] struct {
	g      E
	e      layout.Entry
	score  float64
	member string
}

// redisOrder is how Redis reads a board (ZREVRANGE): higher score first, then member bytes,
// larger first.
func redisOrder(as float64, am string, bs float64, bm string) int {
	if c := cmp.Compare(bs, as); c != 0 {
		return c
	}
	return strings.Compare(bm, am)
}

func sign(c int) int { return cmp.Compare(c, 0) }

func checkCodec[E any](t *testing.T, l *layout.Layout, c codec[E], n int) {
	if c.fingerprint != l.Fingerprint {
		t.Fatalf("generated Fingerprint %s, layout %s: regenerate examples/generated", c.fingerprint, l.Fingerprint)
	}
	rng := rngFor(l.File)

	// Random entries, a quarter of them near ties of an earlier one: the same fields with
	// another id, or one field changed.
	items := make([]item[E], 0, n)
	for i := 0; i < n; i++ {
		e := oracle.RandomEntry(l, rng)
		if i > 0 && rng.IntN(4) == 0 {
			prev := items[rng.IntN(len(items))].e
			e.Keys = slices.Clone(prev.Keys)
			if len(l.Fields) > 0 && rng.IntN(2) == 0 {
				j := rng.IntN(len(l.Fields))
				e.Keys[j] = oracle.RandomKey(l.Fields[j], rng)
				e.ID = prev.ID
			}
		}
		g := c.toGenerated(l, e)
		score, member, err := c.encode(g)
		if err != nil {
			t.Fatalf("generated Encode(%+v): %v", g, err)
		}
		ls, lm, err := l.Encode(e)
		if err != nil {
			t.Fatalf("interpreted Encode(%v): %v", e, err)
		}
		if math.Float64bits(score) != math.Float64bits(ls) || member != lm {
			t.Fatalf("Encode(%+v): generated (%v %x, %q), interpreted (%v %x, %q)", g, score, math.Float64bits(score), member, ls, math.Float64bits(ls), lm)
		}
		back, err := c.decode(score, member)
		if err != nil {
			t.Fatalf("Decode(%v, %q) of %+v: %v", score, member, g, err)
		}
		if !reflect.DeepEqual(back, g) || !reflect.DeepEqual(oracle.FromGenerated(l, back), e) {
			t.Fatalf("Decode(Encode(%+v)) = %+v", g, back)
		}
		items = append(items, item[E]{g, e, score, member})
	}

	// Sorting by generated Compare, by Redis's order and by the interpreted Compare gives
	// the same sequence of stored pairs (equal entries have equal encodings).
	byGen, byRedis, byOracle := slices.Clone(items), slices.Clone(items), slices.Clone(items)
	slices.SortStableFunc(byGen, func(a, b item[E]) int { return c.compare(a.g, b.g) })
	slices.SortStableFunc(byRedis, func(a, b item[E]) int { return redisOrder(a.score, a.member, b.score, b.member) })
	slices.SortStableFunc(byOracle, func(a, b item[E]) int { return l.Compare(a.e, b.e) })
	for i := range items {
		if byGen[i].score != byRedis[i].score || byGen[i].member != byRedis[i].member ||
			byOracle[i].score != byRedis[i].score || byOracle[i].member != byRedis[i].member {
			t.Fatalf("sorted position %d: generated Compare has (%v %q), Redis order (%v %q), interpreted Compare (%v %q)",
				i, byGen[i].score, byGen[i].member, byRedis[i].score, byRedis[i].member, byOracle[i].score, byOracle[i].member)
		}
	}
	// Pairwise: neighbours in rank order (the closest calls) and random pairs.
	checkPair := func(a, b item[E]) {
		gc, rc, oc := sign(c.compare(a.g, b.g)), sign(redisOrder(a.score, a.member, b.score, b.member)), sign(l.Compare(a.e, b.e))
		if gc != rc || oc != rc {
			t.Fatalf("Compare(%+v, %+v): generated %d, Redis %d, interpreted %d", a.g, b.g, gc, rc, oc)
		}
	}
	for i := 1; i < len(byRedis); i++ {
		checkPair(byRedis[i-1], byRedis[i])
		checkPair(byRedis[i], byRedis[i-1])
	}
	for range n {
		checkPair(items[rng.IntN(len(items))], items[rng.IntN(len(items))])
	}

	checkOutOfRange(t, l, c, rng)
	checkDamaged(t, l, c, rng, items)
}

// checkOutOfRange: every value just outside a field's range (that its Go type holds), and
// every bad id, fails in both codecs with ErrOutOfRange, naming the field.
func checkOutOfRange[E any](t *testing.T, l *layout.Layout, c codec[E], rng *rand.Rand) {
	tried := 0
	try := func(e layout.Entry, field string) {
		tried++
		g := c.toGenerated(l, e)
		_, _, gerr := c.encode(g)
		_, _, lerr := l.Encode(e)
		var re *rankgenrt.RangeError
		if !errors.Is(gerr, rankgenrt.ErrOutOfRange) || !errors.As(gerr, &re) || re.Field != field {
			t.Fatalf("generated Encode(%+v) = %v, want a RangeError for %s", g, gerr, field)
		}
		if !errors.Is(lerr, rankgenrt.ErrOutOfRange) {
			t.Fatalf("interpreted Encode(%v) = %v, want ErrOutOfRange", e, lerr)
		}
	}
	for i, f := range l.Fields {
		for _, k := range oracle.OutOfRange(f) {
			e := oracle.RandomEntry(l, rng)
			e.Keys[i] = k
			try(e, f.Name)
		}
	}
	if l.IDType == layout.IDString {
		e := oracle.RandomEntry(l, rng)
		e.ID = ""
		try(e, l.IDName)
		if l.MaxBytes < 1<<20 {
			e.ID = strings.Repeat("x", l.MaxBytes+1)
			try(e, l.IDName)
		}
	}
	t.Logf("%d out-of-range cases refused by both codecs", tried)
	if tried == 0 && l.IDType == layout.IDString {
		t.Fatal("no out-of-range case tried")
	}
}

// checkDamaged: on damaged input, generated and interpreted Decode agree (the same entry, or
// errors of the same kind).
func checkDamaged[E any](t *testing.T, l *layout.Layout, c codec[E], rng *rand.Rand, items []item[E]) {
	accepted, refused := 0, 0
	for range len(items) {
		it := items[rng.IntN(len(items))]
		score, member := oracle.Damage(rng, l, it.score, it.member)
		if agreeDecode(t, l, c, score, member) {
			accepted++
		} else {
			refused++
		}
	}
	t.Logf("%d entries; damaged input: %d accepted, %d refused, both codecs agreeing", len(items), accepted, refused)
	if refused == 0 {
		t.Errorf("no damaged input was refused (%d accepted): the damage is too gentle", accepted)
	}
}

// agreeDecode checks generated Decode against the oracle on one input and reports whether it
// was accepted. An accepted input re-encodes to exactly itself.
func agreeDecode[E any](t *testing.T, l *layout.Layout, c codec[E], score float64, member string) bool {
	g, gerr := c.decode(score, member)
	e, lerr := l.Decode(score, member)
	kind := func(err error) string {
		switch {
		case err == nil:
			return "ok"
		case errors.Is(err, rankgenrt.ErrBadScore):
			return "bad score"
		case errors.Is(err, rankgenrt.ErrBadMember):
			return "bad member"
		}
		return "untyped: " + err.Error()
	}
	if kind(gerr) != kind(lerr) {
		t.Fatalf("Decode(%v [%x], %q): generated %v (%s), interpreted %v (%s)", score, math.Float64bits(score), member, gerr, kind(gerr), lerr, kind(lerr))
	}
	if gerr != nil {
		return false
	}
	if got := oracle.FromGenerated(l, g); !reflect.DeepEqual(got, e) {
		t.Fatalf("Decode(%v, %q): generated %+v (%v), interpreted %v", score, member, g, got, e)
	}
	return true
}

// fuzzDecode: Decode never panics, fails only with typed errors, agrees with the oracle, and
// what it accepts is canonical: it re-encodes to exactly the same score bits and member.
func fuzzDecode[E any](t *testing.T, l *layout.Layout, c codec[E], score float64, member string) {
	if !agreeDecode(t, l, c, score, member) {
		return
	}
	g, _ := c.decode(score, member)
	s, m, err := c.encode(g)
	if err != nil || math.Float64bits(s) != math.Float64bits(score) || m != member {
		t.Fatalf("Decode(%v, %q) = %+v, which encodes to (%v, %q, %v)", score, member, g, s, m, err)
	}
}

func FuzzDecode(f *testing.F) {
	for i, ex := range examples {
		l := loadLayout(f, ex.schema)
		rng := rngFor(ex.name)
		for range 4 {
			s, m, err := l.Encode(oracle.RandomEntry(l, rng))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(i), s, m)
			ds, dm := oracle.Damage(rng, l, s, m)
			f.Add(uint8(i), ds, dm)
		}
		f.Add(uint8(i), math.NaN(), "")
		f.Add(uint8(i), math.Copysign(0, -1), "a")
	}
	f.Fuzz(func(t *testing.T, sel uint8, score float64, member string) {
		examples[int(sel)%len(examples)].fuzz(t, score, member)
	})
}

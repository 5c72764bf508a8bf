package boardtest

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r01"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r02"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r12"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r27"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r32"
	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/examples/generated/seed000member"
	"github.com/rankgen/rankgen/examples/generated/seed001zranking"
	"github.com/rankgen/rankgen/examples/generated/seed002binary"
	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/examples/generated/seed002keysort"
	"github.com/rankgen/rankgen/examples/generated/seed003scaling"
	"github.com/rankgen/rankgen/examples/generated/seed004shift"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/redistest"
	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) { redistest.Main(m) }

var ctx = context.Background()

// codec is a generated package's codec, seen through its (score, member) pairs: enough to
// test it against Redis and the interpreted codec without knowing its Entry type.
type codec interface {
	// roundTrip decodes a pair with the generated Decode and re-encodes the result.
	roundTrip(score float64, member string) (float64, string, error)
	// sortPairs sorts pairs (all produced by this layout) with the generated Compare.
	sortPairs(ps []pair) error
}

type pair struct {
	Score  float64
	Member string
}

// gen adapts a generated package (its Entry type E) to codec.
type gen[E any] struct {
	decode  func(float64, string) (E, error)
	encode  func(E) (float64, string, error)
	compare func(a, b E) int
}

func (g gen[E]) roundTrip(score float64, member string) (float64, string, error) {
	e, err := g.decode(score, member)
	if err != nil {
		return 0, "", err
	}
	return g.encode(e)
}

func (g gen[E]) sortPairs(ps []pair) error {
	es := make([]E, len(ps))
	for i, p := range ps {
		e, err := g.decode(p.Score, p.Member)
		if err != nil {
			return err
		}
		es[i] = e
	}
	idx := make([]int, len(ps))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return g.compare(es[a], es[b]) })
	out := make([]pair, len(ps))
	for i, j := range idx {
		out[i] = ps[j]
	}
	copy(ps, out)
	return nil
}

// example is one example schema with its generated package.
type example struct {
	name     string // package name
	schema   string // file under examples/schemas
	codec    codec
	newBoard func(c redis.UniversalClient, key string) any // the package's NewBoard
}

var examples = []example{
	{"arena", "arena.yaml", gen[arena.Entry]{arena.Decode, arena.Entry.Encode, arena.Compare}, func(c redis.UniversalClient, k string) any { return arena.NewBoard(c, k) }},
	{"racing", "racing.yaml", gen[racing.Entry]{racing.Decode, racing.Entry.Encode, racing.Compare}, func(c redis.UniversalClient, k string) any { return racing.NewBoard(c, k) }},
	{"season", "season.yaml", gen[season.Entry]{season.Decode, season.Entry.Encode, season.Compare}, func(c redis.UniversalClient, k string) any { return season.NewBoard(c, k) }},
	{"seed000member", "seed000_member.yaml", gen[seed000member.Entry]{seed000member.Decode, seed000member.Entry.Encode, seed000member.Compare}, func(c redis.UniversalClient, k string) any { return seed000member.NewBoard(c, k) }},
	{"seed001zranking", "seed001_zranking.yaml", gen[seed001zranking.Entry]{seed001zranking.Decode, seed001zranking.Entry.Encode, seed001zranking.Compare}, func(c redis.UniversalClient, k string) any { return seed001zranking.NewBoard(c, k) }},
	{"seed002binary", "seed002_binary.yaml", gen[seed002binary.Entry]{seed002binary.Decode, seed002binary.Entry.Encode, seed002binary.Compare}, func(c redis.UniversalClient, k string) any { return seed002binary.NewBoard(c, k) }},
	{"seed002decimal", "seed002_decimal.yaml", gen[seed002decimal.Entry]{seed002decimal.Decode, seed002decimal.Entry.Encode, seed002decimal.Compare}, func(c redis.UniversalClient, k string) any { return seed002decimal.NewBoard(c, k) }},
	{"seed002keysort", "seed002_keysort.yaml", gen[seed002keysort.Entry]{seed002keysort.Decode, seed002keysort.Entry.Encode, seed002keysort.Compare}, func(c redis.UniversalClient, k string) any { return seed002keysort.NewBoard(c, k) }},
	{"seed003scaling", "seed003_scaling.yaml", gen[seed003scaling.Entry]{seed003scaling.Decode, seed003scaling.Entry.Encode, seed003scaling.Compare}, func(c redis.UniversalClient, k string) any { return seed003scaling.NewBoard(c, k) }},
	{"seed004shift", "seed004_shift.yaml", gen[seed004shift.Entry]{seed004shift.Decode, seed004shift.Entry.Encode, seed004shift.Compare}, func(c redis.UniversalClient, k string) any { return seed004shift.NewBoard(c, k) }},
	// Boards generated from random schemas (internal/oracle.RandomSchema), committed under
	// internal/random and kept fresh by TestRandomBoardsFresh.
	{"r01", "internal/random/r01/r01.yaml", gen[r01.Entry]{r01.Decode, r01.Entry.Encode, r01.Compare}, func(c redis.UniversalClient, k string) any { return r01.NewBoard(c, k) }},
	{"r02", "internal/random/r02/r02.yaml", gen[r02.Entry]{r02.Decode, r02.Entry.Encode, r02.Compare}, func(c redis.UniversalClient, k string) any { return r02.NewBoard(c, k) }},
	{"r12", "internal/random/r12/r12.yaml", gen[r12.Entry]{r12.Decode, r12.Entry.Encode, r12.Compare}, func(c redis.UniversalClient, k string) any { return r12.NewBoard(c, k) }},
	{"r27", "internal/random/r27/r27.yaml", gen[r27.Entry]{r27.Decode, r27.Entry.Encode, r27.Compare}, func(c redis.UniversalClient, k string) any { return r27.NewBoard(c, k) }},
	{"r32", "internal/random/r32/r32.yaml", gen[r32.Entry]{r32.Decode, r32.Entry.Encode, r32.Compare}, func(c redis.UniversalClient, k string) any { return r32.NewBoard(c, k) }},
}

// parse reads and parses a schema: a file name under examples/schemas, or a path.
func parse(tb testing.TB, schema string) *layout.Layout {
	tb.Helper()
	file := schema
	if filepath.Base(schema) == schema { // an example's schema
		file = filepath.Join("..", "schemas", schema)
	}
	src, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	l, err := layout.Parse(file, src)
	if err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	return l
}

// newRand returns a deterministic generator; the seed is logged so that a failure replays.
func newRand(tb testing.TB, seed uint64) *rand.Rand {
	tb.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// randomDigit returns a digit in [0, span]: the edges often, else uniform.
func randomDigit(rng *rand.Rand, span uint64) uint64 {
	switch rng.IntN(8) {
	case 0:
		return 0
	case 1:
		return span
	}
	if span == ^uint64(0) {
		return rng.Uint64()
	}
	return rng.Uint64N(span + 1)
}

// randomKeys returns random field keys for l.
func randomKeys(rng *rand.Rand, l *layout.Layout) []uint64 {
	keys := make([]uint64, len(l.Fields))
	for i, f := range l.Fields {
		keys[i] = f.Key(randomDigit(rng, f.Span()))
	}
	return keys
}

// randomID returns a random id of l: for string ids 1…MaxBytes bytes drawn mostly from the
// bytes that trip naive comparisons (NUL, 0x7f/0x80, 0xff), the layout's separator and ASCII.
func randomID(rng *rand.Rand, l *layout.Layout) string {
	if l.IDType == layout.IDUint64 {
		switch rng.IntN(4) {
		case 0:
			return strconv.FormatUint(rng.Uint64N(1000), 10)
		case 1:
			return strconv.FormatUint(rng.Uint64(), 10)
		}
		return strconv.FormatUint(rng.Uint64N(1<<(1+rng.IntN(63))), 10)
	}
	alphabet := []byte{0x00, 0x01, 'a', 'b', 'z', '0', '9', 0x7f, 0x80, 0x81, 0xfe, 0xff}
	alphabet = append(alphabet, l.Separator...)
	n := 1 + rng.IntN(min(l.MaxBytes, 12))
	if rng.IntN(20) == 0 {
		n = l.MaxBytes
	}
	b := make([]byte, n)
	for i := range b {
		if rng.IntN(4) == 0 {
			b[i] = byte(rng.IntN(256))
		} else {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
	}
	return string(b)
}

// randomEntries returns n entries of l with distinct ids; a few field tuples are shared by many
// entries so that ties on every field are common.
func randomEntries(rng *rand.Rand, l *layout.Layout, n int) []layout.Entry {
	shared := make([][]uint64, 16)
	for i := range shared {
		shared[i] = randomKeys(rng, l)
	}
	seen := make(map[string]bool, n)
	out := make([]layout.Entry, 0, n)
	for len(out) < n {
		id := randomID(rng, l)
		if seen[id] {
			continue
		}
		seen[id] = true
		keys := shared[rng.IntN(len(shared))]
		if rng.IntN(2) == 0 {
			keys = randomKeys(rng, l)
		}
		out = append(out, layout.Entry{ID: id, Keys: keys})
	}
	return out
}

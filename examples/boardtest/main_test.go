package boardtest

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/random/b01"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/b02"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/b03"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/b04"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r01"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r02"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r12"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r27"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r32"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
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

// gen adapts a generated package's codec to codec.
type gen struct{ exampleboards.Codec }

func (g gen) roundTrip(score float64, member string) (float64, string, error) {
	e, err := g.Decode(score, member)
	if err != nil {
		return 0, "", err
	}
	return g.Encode(e)
}

func (g gen) sortPairs(ps []pair) error {
	es := make([]any, len(ps))
	for i, p := range ps {
		e, err := g.Decode(p.Score, p.Member)
		if err != nil {
			return err
		}
		es[i] = e
	}
	idx := make([]int, len(ps))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return g.Compare(es[a], es[b]) })
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
	schema   string // file under examples/schemas, or a path from this directory
	codec    codec
	newBoard func(c redis.UniversalClient, key string) any // the package's NewBoard (periodic: of the present season)

	// A periodic package's (nil for the others): the season of an instant, and the board of a
	// given season.
	seasonAt func(time.Time) rankgenrt.Season
	boardIn  func(c redis.UniversalClient, key string, s rankgenrt.Season) any
}

// examples are every example of internal/testkit/exampleboards, then boards generated from random
// schemas (internal/testkit/oracle.RandomSchema, and RandomBits62Schema for b01…), committed under internal/random and kept fresh by
// TestRandomBoardsFresh.
var examples = append(fromList(exampleboards.All()), fromList([]exampleboards.Example{
	{Name: "r01", Schema: "internal/random/r01/r01.yaml", Codec: exampleboards.CodecOf(r01.Entry.Encode, r01.Decode, r01.Compare), NewBoard: r01.NewBoard},
	{Name: "r02", Schema: "internal/random/r02/r02.yaml", Codec: exampleboards.CodecOf(r02.Entry.Encode, r02.Decode, r02.Compare), NewBoard: r02.NewBoard},
	{Name: "r12", Schema: "internal/random/r12/r12.yaml", Codec: exampleboards.CodecOf(r12.Entry.Encode, r12.Decode, r12.Compare), NewBoard: r12.NewBoard},
	{Name: "r27", Schema: "internal/random/r27/r27.yaml", Codec: exampleboards.CodecOf(r27.Entry.Encode, r27.Decode, r27.Compare), NewBoard: r27.NewBoard},
	{Name: "r32", Schema: "internal/random/r32/r32.yaml", Codec: exampleboards.CodecOf(r32.Entry.Encode, r32.Decode, r32.Compare), NewBoard: r32.NewBoard},
	{Name: "b01", Schema: "internal/random/b01/b01.yaml", Codec: exampleboards.CodecOf(b01.Entry.Encode, b01.Decode, b01.Compare), NewBoard: b01.NewBoard},
	{Name: "b02", Schema: "internal/random/b02/b02.yaml", Codec: exampleboards.CodecOf(b02.Entry.Encode, b02.Decode, b02.Compare), NewBoard: b02.NewBoard},
	{Name: "b03", Schema: "internal/random/b03/b03.yaml", Codec: exampleboards.CodecOf(b03.Entry.Encode, b03.Decode, b03.Compare), NewBoard: b03.NewBoard},
	{Name: "b04", Schema: "internal/random/b04/b04.yaml", Codec: exampleboards.CodecOf(b04.Entry.Encode, b04.Decode, b04.Compare), NewBoard: b04.NewBoard},
})...)

// periodicExamples are the periodic examples of internal/testkit/exampleboards (a season: block).
// They are kept out of examples, which the sharded boards' tests iterate too; the suites that
// drive periodic boards iterate withPeriodic.
var periodicExamples = fromList(exampleboards.Periodic())

// withPeriodic is examples, then periodicExamples.
func withPeriodic() []example { return append(slices.Clip(examples), periodicExamples...) }

func fromList(exs []exampleboards.Example) []example {
	out := make([]example, len(exs))
	for i, ex := range exs {
		out[i] = example{name: ex.Name, schema: ex.Schema, codec: gen{ex.Codec},
			newBoard: func(c redis.UniversalClient, k string) any { return ex.Board(c, k) }}
		if ex.SeasonAt != nil {
			out[i].seasonAt = ex.SeasonAt
			out[i].boardIn = func(c redis.UniversalClient, k string, s rankgenrt.Season) any { return ex.BoardIn(c, k, s) }
		}
	}
	return out
}

// parse reads and parses a schema: a file name under examples/schemas, or a path.
func parse(tb testing.TB, schema string) *layout.Layout {
	tb.Helper()
	file := schema
	if !strings.HasPrefix(schema, "internal/") { // an example's schema
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

package tstest

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// readOp is one read the harness performs with the TypeScript Board.
type readOp struct {
	Op     string   `json:"op"`
	ID     string   `json:"id,omitempty"`
	IDs    []string `json:"ids,omitempty"`
	N      int64    `json:"n"`
	Offset int64    `json:"offset"`
	Limit  int64    `json:"limit"`
	Before int64    `json:"before"`
	After  int64    `json:"after"`
	Fill   bool     `json:"fill"`
	Fp     string   `json:"fp,omitempty"` // switch: the fingerprint another layout claims the board with
}

type readsInput struct {
	Module string   `json:"module"`
	Addr   string   `json:"addr"`
	Key    string   `json:"key"`
	Ops    []readOp `json:"ops"`
}

// goBoard is an example's Go board, driven through boardmodel, and its sorted set's key.
func goBoard(t *testing.T, ex exampleboards.Example, c *redis.Client, l *layout.Layout, name string) (*boardmodel.Board, string) {
	key := redistest.Key(t, name)
	var board any
	if ex.SeasonAt != nil {
		board = ex.BoardIn(c, key, exampleboards.LiveSeason(t, c, ex.SeasonAt, 2*time.Minute))
	} else {
		board = ex.Board(c, key)
	}
	b := boardmodel.NewBoard(l, board)
	return b, b.Keys()[0]
}

// TestReadsEqualGo fills a board of every example through its Go package, flushes the server's
// functions (on the private server), and reads the board from TypeScript: top, pages (empty and past the end
// included), around (filled too, at both ends), rank, get and getMany of present, missing and
// invalid ids must equal the Go board's reads, and the reads must have loaded the library.
func TestReadsEqualGo(t *testing.T) {
	dist := buildModules(t)
	c := redistest.Client(t)
	for _, ex := range examples() {
		t.Run(ex.Name, func(t *testing.T) {
			l := ex.Layout(t)
			h := fnv.New64a()
			h.Write([]byte(ex.Name))
			rng := rand.New(rand.NewPCG(1128, h.Sum64()))
			b, key := goBoard(t, ex, c, l, "board")
			ids := fill(t, b, l, rng, 40)
			ops := readOps(l, ids, rng)
			want := make([]any, len(ops))
			for i, op := range ops {
				want[i] = goRead(t, b, l, op)
			}
			if redistest.External() {
				// Other packages' tests may share a server named by REDIS_URL, with this very
				// library in their pipelines: it stays, and the reads find it loaded.
				t.Log("REDIS_URL: the library is not flushed; the private server's run tests that the reads load it")
			} else if err := c.FunctionFlush(context.Background()).Err(); err != nil {
				t.Fatal(err)
			}
			ops = append(ops, readOp{Op: "functions"})
			want = append(want, "1")
			var got []any
			runHarness(t, dist, "reads", readsInput{Module: modulePath(dist, ex), Addr: c.Options().Addr, Key: key, Ops: ops}, &got)
			want = normalize(t, want)
			if len(got) != len(want) {
				t.Fatalf("harness answered %d reads, want %d", len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					g, _ := json.Marshal(got[i])
					w, _ := json.Marshal(want[i])
					t.Errorf("%+v:\n TypeScript: %.600s\n Go:         %.600s", ops[i], g, w)
				}
			}
		})
	}
}

// fill sets n random entries (their data too) through the Go board and returns their ids:
// text ids are drawn as UTF-8 text, which TypeScript ids are.
func fill(t *testing.T, b *boardmodel.Board, l *layout.Layout, rng *rand.Rand, n int) []string {
	var ids []string
	for tries := 0; len(ids) < n; tries++ {
		if tries > 20*n {
			t.Fatalf("only %d of %d entries stored", len(ids), n)
		}
		e := oracle.RandomEntry(l, rng)
		if !utf8.ValidString(e.ID) {
			continue
		}
		if l.HasData() {
			e.Data = oracle.RandomData(l, rng)
		}
		if _, err := b.Set(e); err != nil {
			if l.Season != nil && errors.Is(err, rankgenrt.ErrSeasonClosed) {
				continue // a season-anchored offset past this season's end
			}
			t.Fatalf("Set(%v): %v", e, err)
		}
		ids = append(ids, e.ID)
	}
	return ids
}

// missingID is an id no entry has (the ids drawn are at most 20 digits or max_bytes bytes, and
// none is this one with overwhelming odds: it is checked to be absent).
func missingID(l *layout.Layout, ids []string) string {
	id := "1234567890123"
	if l.IDType == layout.IDString {
		id = "missing-" + strings.Repeat("x", min(8, l.MaxBytes))
		id = id[:min(len(id), l.MaxBytes)]
	}
	for _, have := range ids {
		if have == id {
			panic("tstest: the missing id is on the board")
		}
	}
	return id
}

func readOps(l *layout.Layout, ids []string, rng *rand.Rand) []readOp {
	n := int64(len(ids))
	missing := missingID(l, ids)
	ops := []readOp{
		{Op: "top", N: 10}, {Op: "top", N: 100}, {Op: "page", Offset: 5, Limit: 7}, {Op: "page", Offset: n - 3, Limit: 10},
		{Op: "page", Offset: n + 100, Limit: 5}, {Op: "page", Offset: 0, Limit: 0}, {Op: "page", Offset: -1, Limit: 3},
		{Op: "rank", ID: missing}, {Op: "get", ID: missing}, {Op: "around", ID: missing, Before: 1, After: 1},
		{Op: "getMany", IDs: []string{ids[0], missing, ids[1], ids[0]}},
	}
	for range 6 {
		id := ids[rng.IntN(len(ids))]
		ops = append(ops, readOp{Op: "rank", ID: id}, readOp{Op: "get", ID: id},
			readOp{Op: "around", ID: id, Before: int64(rng.IntN(4)), After: int64(rng.IntN(4)), Fill: rng.IntN(2) == 0})
	}
	ops = append(ops, readOp{Op: "getMany", IDs: ids}, readOp{Op: "rankedMany", IDs: append([]string{missing, ids[0]}, ids...)})
	if l.IDType == layout.IDString { // an id longer than any entry's: refused before anything is sent
		long := strings.Repeat("y", l.MaxBytes+1)
		ops = append(ops, readOp{Op: "get", ID: long}, readOp{Op: "rank", ID: long}, readOp{Op: "getMany", IDs: []string{ids[0], long}})
	}
	return ops
}

// goRead performs op on the Go board and returns its answer as the harness prints the
// TypeScript one.
func goRead(t *testing.T, b *boardmodel.Board, l *layout.Layout, op readOp) any {
	var v any
	var err error
	switch op.Op {
	case "top":
		var rs []boardmodel.Ranked
		rs, err = b.Top(op.N)
		v = rankedJSON(l, rs)
	case "page":
		var rs []boardmodel.Ranked
		rs, err = b.Page(op.Offset, op.Limit)
		v = rankedJSON(l, rs)
	case "around":
		var rs []boardmodel.Ranked
		if op.Fill {
			rs, err = b.AroundFilled(op.ID, op.Before, op.After)
		} else {
			rs, err = b.Around(op.ID, op.Before, op.After)
		}
		v = rankedJSON(l, rs)
	case "rank":
		var r int64
		r, err = b.Rank(op.ID)
		v = strconv.FormatInt(r, 10)
	case "get":
		var e layout.Entry
		if e, err = b.Get(op.ID); err == nil {
			v = fullEntryJSON(l, e)
		}
	case "getMany":
		var rs []boardmodel.Result
		rs, err = b.GetMany(op.IDs...)
		out := []any{}
		for _, r := range rs {
			if r.Err != nil {
				out = append(out, map[string]any{"error": readCode(t, r.Err)})
				continue
			}
			out = append(out, map[string]any{"entry": fullEntryJSON(l, r.Written.Entry)})
		}
		v = out
	case "rankedMany":
		var rs []boardmodel.Ranked
		rs, err = b.RankedMany(op.IDs...)
		v = rankedJSON(l, rs)
	default:
		t.Fatalf("no Go read for %q", op.Op)
	}
	if err != nil {
		return map[string]any{"error": readCode(t, err)}
	}
	return v
}

// readCode is code, with the reads' own errors.
func readCode(t *testing.T, err error) string {
	if errors.Is(err, rankgenrt.ErrNotFound) {
		return "NOT_FOUND"
	}
	if errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		return "LAYOUT_MISMATCH"
	}
	return code(t, err)
}

func rankedJSON(l *layout.Layout, rs []boardmodel.Ranked) []any {
	out := []any{}
	for _, r := range rs {
		out = append(out, map[string]any{"rank": strconv.FormatInt(r.Rank, 10), "entry": fullEntryJSON(l, r.Entry)})
	}
	return out
}

// fullEntryJSON is entryJSON with the entry's data, as reads return it (zero data where the
// entry has none).
func fullEntryJSON(l *layout.Layout, e layout.Entry) map[string]any {
	out := entryJSON(l, e)
	if l.HasData() {
		data := e.Data
		if data == nil {
			data = l.ZeroData()
		}
		out["data"] = dataJSON(l, data)
	}
	return out
}

// normalize passes v through JSON, as the harness's answers are read.
func normalize(t *testing.T, v []any) []any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadsAfterASwitch: a module's Board that has read its board refuses it once another
// layout claims it (a migration's switch): it never reads the new layout's entries as its own.
func TestReadsAfterASwitch(t *testing.T) {
	dist := buildModules(t)
	c := redistest.Client(t)
	for _, ex := range examples() {
		t.Run(ex.Name, func(t *testing.T) {
			l := ex.Layout(t)
			b, key := goBoard(t, ex, c, l, "switch")
			ids := fill(t, b, l, rand.New(rand.NewPCG(6, 7)), 5)
			ops := []readOp{{Op: "top", N: 3}, {Op: "get", ID: ids[0]}, {Op: "switch", Fp: "0123456789abcdef"},
				{Op: "top", N: 3}, {Op: "get", ID: ids[0]}, {Op: "rank", ID: ids[0]}}
			var got []any
			runHarness(t, dist, "reads", readsInput{Module: modulePath(dist, ex), Addr: c.Options().Addr, Key: key, Ops: ops}, &got)
			for i, r := range got {
				refused := reflect.DeepEqual(r, map[string]any{"error": "LAYOUT_MISMATCH"})
				if i < 2 && refused || i > 2 && !refused {
					t.Errorf("%+v: %v; want the read %s", ops[i], r, map[bool]string{true: "refused", false: "to succeed"}[i > 2])
				}
			}
		})
	}
}

// TestReadsRefuseAnotherLayout reads a board one example wrote with the TypeScript module of
// another: every read, by plain command or by library function, is refused with a
// LayoutMismatchError before anything is decoded, as the other example's Go board refuses it.
func TestReadsRefuseAnotherLayout(t *testing.T) {
	dist := buildModules(t)
	c := redistest.Client(t)
	byName := map[string]exampleboards.Example{}
	for _, ex := range examples() {
		byName[ex.Name] = ex
	}
	for _, pair := range [][2]string{{"arena", "duel"}, {"pits", "season"}, {"laps", "arena"}} {
		writer, reader := byName[pair[0]], byName[pair[1]]
		t.Run(pair[0]+"_read_as_"+pair[1], func(t *testing.T) {
			wl, rl := writer.Layout(t), reader.Layout(t)
			b, key := goBoard(t, writer, c, wl, "board")
			ids := fill(t, b, wl, rand.New(rand.NewPCG(1, 2)), 5)
			id := ids[0]
			if rl.IDType == layout.IDUint64 || wl.IDType == layout.IDUint64 {
				t.Fatalf("pick examples with text ids: %s, %s", pair[0], pair[1])
			}
			other := boardmodel.NewBoard(rl, reader.Board(c, key))
			if _, err := other.Top(3); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
				t.Fatalf("Go board of %s read %s's board: %v, want ErrLayoutMismatch", pair[1], pair[0], err)
			}
			ops := []readOp{{Op: "top", N: 3}, {Op: "get", ID: id}, {Op: "rank", ID: id}, {Op: "around", ID: id, Before: 1, After: 1}, {Op: "getMany", IDs: []string{id}}}
			var got []any
			runHarness(t, dist, "reads", readsInput{Module: modulePath(dist, reader), Addr: c.Options().Addr, Key: key, Ops: ops}, &got)
			for i, op := range ops {
				if want := map[string]any{"error": "LAYOUT_MISMATCH"}; !reflect.DeepEqual(got[i], want) {
					t.Errorf("%s module, %+v on %s's board: %v, want %v", pair[1], op, pair[0], got[i], want)
				}
			}
		})
	}
}

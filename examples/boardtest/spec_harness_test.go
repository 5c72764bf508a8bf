package boardtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// example is a generated package seen through reflection, so that one harness drives all.
type specExample struct {
	name                  string
	l                     *layout.Layout
	newBoard, decode      reflect.Value
	withTTL, withExpireAt reflect.Value
	seasonAt              func(time.Time) rankgenrt.Season // a periodic package's calendar; nil for the others
}

// examples are the examples of internal/testkit/exampleboards this package drives: boards with bare
// ids and with a member prefix, integer and decimal scores, server and client stamps, and a
// periodic board (weekly).
func specExamples(t testing.TB) []*specExample {
	var out []*specExample
	for _, ex := range exampleboards.Named(t, "arena", "racing", "season", "seed000member", "seed001zranking", "seed002decimal", "weekly") {
		out = append(out, &specExample{ex.Name, ex.Layout(t), reflect.ValueOf(ex.NewBoard), reflect.ValueOf(ex.Decode),
			reflect.ValueOf(ex.WithTTL), reflect.ValueOf(ex.WithExpireAt), ex.SeasonAt})
	}
	return out
}

// board is a generated *Board with the helpers to call it in layout terms.
type board struct {
	*boardmodel.Board
	t   testing.TB
	ex  *specExample
	c   redis.UniversalClient
	key string
}

// board returns the example's board under key; a periodic one holds the season of Redis's
// clock, which lasts the whole test (exampleboards.LiveSeason), so that its stamps succeed.
func (ex *specExample) board(t testing.TB, c redis.UniversalClient, key string, opts ...reflect.Value) *board {
	args := []reflect.Value{reflect.ValueOf(c), reflect.ValueOf(key)}
	if ex.seasonAt != nil {
		args = append(args, reflect.ValueOf(exampleboards.LiveSeason(t, c, ex.seasonAt, seasonMargin)))
	}
	return ex.boardOf(t, c, key, append(args, opts...))
}

// boardOf calls NewBoard with args, which start with c and key.
func (ex *specExample) boardOf(t testing.TB, c redis.UniversalClient, key string, args []reflect.Value) *board {
	return &board{Board: boardmodel.NewBoard(ex.l, ex.newBoard.Call(args)[0].Interface()), t: t, ex: ex, c: c, key: key}
}

// call calls a method of the board (see boardmodel.Board.Call); a missing one fails the test.
func (b *board) call(method string, args ...any) []reflect.Value {
	b.t.Helper()
	if !b.V.MethodByName(method).IsValid() {
		b.t.Fatalf("%s: no method %s", b.ex.name, method)
	}
	return b.Call(method, args...)
}

// gen converts an interpreted entry to the generated Entry.
func (ex *specExample) gen(t testing.TB, e layout.Entry) reflect.Value {
	t.Helper()
	score, member, err := ex.l.Encode(e)
	if err != nil {
		t.Fatalf("%s: Encode %v: %v", ex.name, e, err)
	}
	out := ex.decode.Call([]reflect.Value{reflect.ValueOf(score), reflect.ValueOf(member)})
	if err := boardmodel.ErrOf(out[1]); err != nil {
		t.Fatalf("%s: generated Decode: %v", ex.name, err)
	}
	return out[0]
}

// interp converts a generated Entry to the interpreted one, through its encoding.
func (ex *specExample) interp(t testing.TB, e reflect.Value) layout.Entry {
	t.Helper()
	out := e.MethodByName("Encode").Call(nil)
	if err := boardmodel.ErrOf(out[2]); err != nil {
		t.Fatalf("%s: generated Encode: %v", ex.name, err)
	}
	le, err := ex.l.Decode(out[0].Float(), out[1].String())
	if err != nil {
		t.Fatalf("%s: interpreted Decode: %v", ex.name, err)
	}
	return le
}

// value is the generated Go value of field i for key.
func (ex *specExample) value(t testing.TB, i int, key uint64) reflect.Value {
	e := layout.Entry{ID: "1", Keys: boardmodel.Zero(ex.l)}
	e.Keys[i] = key
	return ex.gen(t, e).FieldByName(ex.l.Fields[i].Name)
}

// ---- state checks ----

// checkState compares the board in Redis with the model, bit for bit: every (score, member)
// pair, and the index.
func (b *board) checkState(m *boardmodel.Model, where string) {
	b.t.Helper()
	l := b.ex.l
	zs, err := b.c.ZRangeWithScores(ctx, b.key, 0, -1).Result()
	if err != nil {
		b.t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, z := range zs {
		got[z.Member.(string)] = math.Float64bits(z.Score)
	}
	pairs, err := m.Pairs()
	if err != nil {
		b.t.Fatalf("%s: %v", where, err)
	}
	want := map[string]uint64{}
	index := map[string]string{}
	for _, p := range pairs {
		want[p.Member] = math.Float64bits(p.Score)
		index[p.Entry.ID] = p.Member
	}
	if !reflect.DeepEqual(got, want) {
		b.t.Fatalf("%s: %s board differs from the model:\n got %v\nwant %v", where, b.ex.name, got, want)
	}
	if l.HasPrefix() {
		h, err := b.c.HGetAll(ctx, rankgenrt.IndexKey(b.key)).Result()
		if err != nil {
			b.t.Fatal(err)
		}
		if len(h) > 0 || len(index) > 0 {
			if fp := h[""]; fp != l.Fingerprint {
				b.t.Fatalf("%s: index fingerprint %q, want %q", where, fp, l.Fingerprint)
			}
			delete(h, "")
		}
		if !reflect.DeepEqual(h, index) && !(len(h) == 0 && len(index) == 0) {
			b.t.Fatalf("%s: index differs:\n got %q\nwant %q", where, h, index)
		}
	}
}

// randomEntry draws an entry of model m's board with every field in range, often at an edge;
// a season-anchored field, inside the model's season.
func randomEntry(r *rand.Rand, m *boardmodel.Model, id string) layout.Entry {
	l := m.Layout
	e := layout.Entry{ID: id, Keys: make([]uint64, len(l.Fields))}
	for i, f := range l.Fields {
		hi := m.MaxKey(f)
		switch r.IntN(6) {
		case 0:
			e.Keys[i] = f.Lo
		case 1:
			e.Keys[i] = hi
		default:
			e.Keys[i] = f.Lo + r.Uint64N(min(hi-f.Lo, 1000)+1)
		}
	}
	return e
}

func (ex *specExample) ids() []string {
	if ex.l.IDType == layout.IDUint64 {
		return []string{"0", "7", "42", "1000", "18446744073709551615", "99", "3", "12"}
	}
	return []string{"alice", "bob", "carol", "dave", "é\x00\xff", "Z", "a:b|c", "x"}
}

func fmtKeys(l *layout.Layout, k []uint64) string {
	s := ""
	for i, f := range l.Fields {
		s += fmt.Sprintf("%s=%s ", f.Name, f.Format(k[i]))
	}
	return s
}

package boardspec

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/examples/generated/seed000member"
	"github.com/rankgen/rankgen/examples/generated/seed001zranking"
	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
	"github.com/rankgen/rankgen/internal/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) { redistest.Main(m) }

var ctx = context.Background()

// example is a generated package seen through reflection, so that one harness drives all.
type example struct {
	name                  string
	l                     *layout.Layout
	newBoard, decode      reflect.Value
	withTTL, withExpireAt reflect.Value
}

func examples(t testing.TB) []*example {
	mk := func(name string, newBoard, decode, ttl, at any) *example {
		file := map[string]string{"seed000member": "seed000_member", "seed001zranking": "seed001_zranking", "seed002decimal": "seed002_decimal"}[name]
		if file == "" {
			file = name
		}
		src, err := os.ReadFile(filepath.Join("..", "..", "examples", "schemas", file+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		l, err := layout.Parse(file+".yaml", src)
		if err != nil {
			t.Fatal(err)
		}
		return &example{name, l, reflect.ValueOf(newBoard), reflect.ValueOf(decode), reflect.ValueOf(ttl), reflect.ValueOf(at)}
	}
	return []*example{
		mk("arena", arena.NewBoard, arena.Decode, arena.WithTTL, arena.WithExpireAt),
		mk("racing", racing.NewBoard, racing.Decode, racing.WithTTL, racing.WithExpireAt),
		mk("season", season.NewBoard, season.Decode, season.WithTTL, season.WithExpireAt),
		mk("seed000member", seed000member.NewBoard, seed000member.Decode, seed000member.WithTTL, seed000member.WithExpireAt),
		mk("seed001zranking", seed001zranking.NewBoard, seed001zranking.Decode, seed001zranking.WithTTL, seed001zranking.WithExpireAt),
		mk("seed002decimal", seed002decimal.NewBoard, seed002decimal.Decode, seed002decimal.WithTTL, seed002decimal.WithExpireAt),
	}
}

// board is a generated *Board with the helpers to call it in layout terms.
type board struct {
	t   testing.TB
	ex  *example
	v   reflect.Value
	c   redis.UniversalClient
	key string
}

func (ex *example) board(t testing.TB, c redis.UniversalClient, key string, opts ...reflect.Value) *board {
	args := append([]reflect.Value{reflect.ValueOf(c), reflect.ValueOf(key)}, opts...)
	return &board{t: t, ex: ex, v: ex.newBoard.Call(args)[0], c: c, key: key}
}

func (b *board) call(method string, args ...any) []reflect.Value {
	b.t.Helper()
	m := b.v.MethodByName(method)
	if !m.IsValid() {
		b.t.Fatalf("%s: no method %s", b.ex.name, method)
	}
	in := []reflect.Value{reflect.ValueOf(ctx)}
	for i, a := range args {
		v, ok := a.(reflect.Value)
		if !ok {
			v = reflect.ValueOf(a)
		}
		var pt reflect.Type
		if mt := m.Type(); mt.IsVariadic() && i+1 >= mt.NumIn()-1 {
			pt = mt.In(mt.NumIn() - 1).Elem()
		} else {
			pt = mt.In(i + 1)
		}
		if v.Type() != pt && v.Type().ConvertibleTo(pt) {
			v = v.Convert(pt)
		}
		in = append(in, v)
	}
	return m.Call(in)
}

func errOf(v reflect.Value) error {
	if v.IsNil() {
		return nil
	}
	return v.Interface().(error)
}

// id converts a test id to the package's id type.
func (ex *example) id(id string) reflect.Value {
	if ex.l.IDType == layout.IDUint64 {
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			panic(err)
		}
		return reflect.ValueOf(n)
	}
	return reflect.ValueOf(id)
}

// gen converts an interpreted entry to the generated Entry.
func (ex *example) gen(t testing.TB, e layout.Entry) reflect.Value {
	t.Helper()
	score, member, err := ex.l.Encode(e)
	if err != nil {
		t.Fatalf("%s: Encode %v: %v", ex.name, e, err)
	}
	out := ex.decode.Call([]reflect.Value{reflect.ValueOf(score), reflect.ValueOf(member)})
	if err := errOf(out[1]); err != nil {
		t.Fatalf("%s: generated Decode: %v", ex.name, err)
	}
	return out[0]
}

// interp converts a generated Entry to the interpreted one, through its encoding.
func (ex *example) interp(t testing.TB, e reflect.Value) layout.Entry {
	t.Helper()
	out := e.MethodByName("Encode").Call(nil)
	if err := errOf(out[2]); err != nil {
		t.Fatalf("%s: generated Encode: %v", ex.name, err)
	}
	le, err := ex.l.Decode(out[0].Float(), out[1].String())
	if err != nil {
		t.Fatalf("%s: interpreted Decode: %v", ex.name, err)
	}
	return le
}

// value is the generated Go value of field i for key.
func (ex *example) value(t testing.TB, i int, key uint64) reflect.Value {
	e := layout.Entry{ID: "1", Keys: zeroKeys(ex.l)}
	e.Keys[i] = key
	return ex.gen(t, e).FieldByName(ex.l.Fields[i].Name)
}

func zeroKeys(l *layout.Layout) []uint64 {
	keys := make([]uint64, len(l.Fields))
	for i, f := range l.Fields {
		keys[i] = f.Key(luaemit.ZeroDigit(f))
	}
	return keys
}

// ---- the model: the board as the interpreted codec sees it ----

type model struct {
	l       *layout.Layout
	entries map[string][]uint64
}

func newModel(l *layout.Layout) *model { return &model{l: l, entries: map[string][]uint64{}} }

// sorted returns the entries in the board's order.
func (m *model) sorted() []layout.Entry {
	var es []layout.Entry
	for id, k := range m.entries {
		es = append(es, layout.Entry{ID: id, Keys: k})
	}
	slices.SortFunc(es, m.l.Compare)
	return es
}

// update applies a field update to the model. arg is the delta (add) or the value's key. It
// returns the new keys, whether the entry changed, and the error kind (ErrOverflow).
func (m *model) update(id string, fi int, op layout.Op, delta int64, key uint64) ([]uint64, bool, error) {
	f := m.l.Fields[fi]
	old, exists := m.entries[id]
	if !exists {
		old = zeroKeys(m.l)
	}
	d := f.Digit(old[fi])
	var nd uint64
	switch op {
	case layout.OpAdd:
		x := int64(d)
		if f.Order == layout.Desc {
			x += delta
		} else {
			x -= delta
		}
		if x < 0 || x > int64(f.Span()) {
			if f.Overflow == layout.OverflowError {
				return old, false, rankgenrt.ErrOverflow
			}
			x = max(0, min(x, int64(f.Span())))
		}
		nd = uint64(x)
	case layout.OpSet:
		nd = f.Digit(key)
	case layout.OpMax, layout.OpMin:
		a := f.Digit(key)
		larger := (op == layout.OpMax) == (f.Order == layout.Desc)
		nd = d
		if larger && a > d || !larger && a < d {
			nd = a
		}
	}
	keys := slices.Clone(old)
	keys[fi] = f.Key(nd)
	return keys, nd != d || !exists, nil
}

// ---- state checks ----

// checkState compares the board in Redis with the model, bit for bit: every (score, member)
// pair, and the index.
func (b *board) checkState(m *model, where string) {
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
	want := map[string]uint64{}
	index := map[string]string{}
	for id, k := range m.entries {
		score, member, err := l.Encode(layout.Entry{ID: id, Keys: k})
		if err != nil {
			b.t.Fatalf("%s: model entry %q: %v", where, id, err)
		}
		want[member] = math.Float64bits(score)
		index[id] = member
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

// randomEntry draws an entry with every field in range, often at an edge.
func randomEntry(r *rand.Rand, l *layout.Layout, id string) layout.Entry {
	e := layout.Entry{ID: id, Keys: make([]uint64, len(l.Fields))}
	for i, f := range l.Fields {
		switch r.IntN(6) {
		case 0:
			e.Keys[i] = f.Lo
		case 1:
			e.Keys[i] = f.Hi
		default:
			e.Keys[i] = f.Lo + r.Uint64N(min(f.Span(), 1000)+1)
		}
	}
	return e
}

func (ex *example) ids() []string {
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

var _ = time.Second

package boardtest

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// upd is one field update in layout terms.
type upd struct {
	id    string
	fi    int
	op    layout.Op
	delta int64  // add
	key   uint64 // max, min, set
}

// updates applies a batch through <Op><Field>Many and returns the per-update results in
// layout terms.
func (b *board) updates(fi int, op layout.Op, us []upd) ([]layout.Entry, []error, error) {
	b.t.Helper()
	f := b.ex.l.Fields[fi]
	if len(us) == 1 && us[0].id != "" { // the single form, its own straight-line script
		arg := reflect.ValueOf(us[0].delta)
		if op != layout.OpAdd {
			arg = b.ex.value(b.t, fi, us[0].key)
		}
		out := b.call(boardmodel.MethodName(f, op), boardmodel.ID(b.ex.l, us[0].id), arg)
		if err := boardmodel.ErrOf(out[1]); err != nil {
			if errors.Is(err, rankgenrt.ErrLayoutMismatch) {
				return nil, nil, err
			}
			return []layout.Entry{{}}, []error{err}, nil
		}
		return []layout.Entry{b.ex.interp(b.t, out[0])}, []error{nil}, nil
	}
	m := b.V.MethodByName(boardmodel.MethodName(f, op) + "Many")
	st := m.Type().In(1)
	slice := reflect.MakeSlice(st, len(us), len(us))
	for i, u := range us {
		slice.Index(i).Field(0).Set(boardmodel.ID(b.ex.l, u.id))
		if op == layout.OpAdd {
			slice.Index(i).Field(1).SetInt(u.delta)
		} else {
			slice.Index(i).Field(1).Set(b.ex.value(b.t, fi, u.key))
		}
	}
	out := b.call(boardmodel.MethodName(f, op)+"Many", slice)
	if err := boardmodel.ErrOf(out[1]); err != nil {
		return nil, nil, err
	}
	res := out[0]
	entries := make([]layout.Entry, len(us))
	errs := make([]error, len(us))
	for i := range us {
		r := res.Index(i)
		if err := boardmodel.ErrOf(r.FieldByName("Err")); err != nil {
			errs[i] = err
			continue
		}
		entries[i] = b.ex.interp(b.t, boardmodel.Embedded(r, "Entry"))
	}
	return entries, errs, nil
}

// applyModel applies a batch to the model, checking each result the board returned.
func (b *board) applyModel(m *boardmodel.Model, fi int, op layout.Op, us []upd, got []layout.Entry, errs []error, t0, t1 time.Time) {
	b.t.Helper()
	l := b.ex.l
	for i, u := range us {
		keys, changed, err := m.Next(u.id, boardmodel.Update{Field: fi, Op: op, Delta: u.delta, Key: u.key})
		if err != nil || errs[i] != nil {
			if !errors.Is(errs[i], err) || err == nil {
				b.t.Fatalf("%s %s(%q): board error %v, model error %v", b.ex.name, boardmodel.MethodName(l.Fields[fi], op), u.id, errs[i], err)
			}
			continue
		}
		if changed {
			for si, s := range l.Fields {
				if s.Stamp == layout.StampNone || si == fi {
					continue
				}
				if s.Season && m.Season != nil { // an offset from the season's start
					k, err := m.SeasonStamp(si, got[i], boardmodel.Window{Before: t0, After: t1})
					if err != nil {
						b.t.Fatalf("%s: %v", b.ex.name, err)
					}
					keys[si] = k
					continue
				}
				k := got[i].Keys[si]
				lo, _ := layout.TimeUnits(t0, s.Unit)
				hi, _ := layout.TimeUnits(t1, s.Unit)
				if v := layout.IntOf(k); v < lo || v > hi {
					b.t.Fatalf("%s: stamp %s = %s outside [%v, %v]", b.ex.name, s.Name, s.Format(k), t0, t1)
				}
				keys[si] = k
			}
		}
		m.Entries[u.id] = keys
		want := layout.Entry{ID: u.id, Keys: keys}
		if got[i].ID != u.id || !slices.Equal(got[i].Keys, keys) {
			b.t.Fatalf("%s %s(%q, %d/%d): returned %s, model %s", b.ex.name, boardmodel.MethodName(l.Fields[fi], op), u.id, u.delta, u.key, fmtKeys(l, got[i].Keys), fmtKeys(l, want.Keys))
		}
	}
}

func randomUpdate(r *rand.Rand, m *boardmodel.Model, ids []string, fi int, op layout.Op) upd {
	f := m.Layout.Fields[fi]
	u := upd{id: ids[r.IntN(len(ids))], fi: fi, op: op}
	switch op {
	case layout.OpAdd:
		span := int64(min(f.Span(), 1<<40))
		switch r.IntN(5) {
		case 0:
			u.delta = span + 1 - r.Int64N(3) // near or past the edge
		case 1:
			u.delta = -span - 1 + r.Int64N(3)
		default:
			u.delta = r.Int64N(201) - 60
		}
	default:
		u.key = randomEntry(r, m, "x").Keys[fi]
	}
	return u
}

// TestOpsMatchCodec drives each example board with random sequences of every write and
// compares the whole board (score bits, members, index) with the interpreted codec after
// every operation, and every read with the model's order.
func TestOpsMatchCodec(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		for _, ex := range specExamples(t) {
			for _, ttl := range []bool{false, true} {
				name := ex.name
				if ttl {
					name += "/ttl"
				}
				t.Run(name, func(t *testing.T) { opsMatchCodec(t, tg.Client, ex, ttl, tg.Size(600, 200)) })
			}
		}
	})
}

func opsMatchCodec(t *testing.T, c redis.UniversalClient, ex *specExample, ttl bool, steps int) {
	key := redistest.Key(t, "{ops}")
	var opts []reflect.Value
	if ttl {
		opts = append(opts, ex.withTTL.Call([]reflect.Value{reflect.ValueOf(time.Hour)})[0])
	}
	b := ex.board(t, c, key, opts...)
	m := boardmodel.For(b.Board)
	r := rand.New(rand.NewPCG(1, uint64(len(ex.name))))
	ids := ex.ids()
	type fop struct {
		fi int
		op layout.Op
	}
	var fops []fop
	for i, f := range ex.l.Fields {
		for _, op := range f.Updates {
			fops = append(fops, fop{i, op})
		}
	}
	for step := 0; step < steps; step++ {
		switch k := r.IntN(10); {
		case k == 0:
			e := randomEntry(r, m, ids[r.IntN(len(ids))])
			if err := boardmodel.ErrOf(b.call("Set", ex.gen(t, e))[1]); err != nil {
				t.Fatal(err)
			}
			m.Entries[e.ID] = e.Keys
		case k == 1:
			e := randomEntry(r, m, ids[r.IntN(len(ids))])
			out := b.call("Best", ex.gen(t, e))
			if err := boardmodel.ErrOf(out[1]); err != nil {
				t.Fatal(err)
			}
			old, ok := m.Entries[e.ID]
			want := !ok || ex.l.Compare(e, layout.Entry{ID: e.ID, Keys: old}) < 0
			if kept := out[0].FieldByName("Changed").Bool(); kept != want {
				t.Fatalf("step %d: Best kept=%v, model %v", step, kept, want)
			}
			if want {
				m.Entries[e.ID] = e.Keys
			}
		case k == 2 && step%5 == 0:
			n := r.IntN(3) + 1
			var rm []reflect.Value
			var want int64
			seen := map[string]bool{}
			for i := 0; i < n; i++ {
				id := ids[r.IntN(len(ids))]
				rm = append(rm, boardmodel.ID(ex.l, id))
				if _, ok := m.Entries[id]; ok && !seen[id] {
					want++
				}
				seen[id] = true
			}
			args := make([]any, len(rm))
			for i := range rm {
				args[i] = rm[i]
			}
			out := b.call("Remove", args...)
			if err := boardmodel.ErrOf(out[1]); err != nil || out[0].Int() != want {
				t.Fatalf("step %d: Remove = %d, %v; want %d", step, out[0].Int(), err, want)
			}
			for id := range seen {
				delete(m.Entries, id)
			}
		case k == 3 && step%7 == 0:
			keep := int64(r.IntN(len(ids)))
			sorted := m.Sorted()
			out := b.call("Trim", keep)
			want := max(0, int64(len(sorted))-keep)
			if err := boardmodel.ErrOf(out[1]); err != nil || out[0].Int() != want {
				t.Fatalf("step %d: Trim(%d) = %d, %v; want %d", step, keep, out[0].Int(), err, want)
			}
			for _, e := range sorted[min(int(keep), len(sorted)):] {
				delete(m.Entries, e.ID)
			}
		default:
			fo := fops[r.IntN(len(fops))]
			n := 1
			if r.IntN(3) == 0 {
				n = 2 + r.IntN(5)
			}
			us := make([]upd, n)
			for i := range us {
				us[i] = randomUpdate(r, m, ids, fo.fi, fo.op)
			}
			t0 := time.Now()
			got, errs, err := b.updates(fo.fi, fo.op, us)
			t1 := time.Now()
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			b.applyModel(m, fo.fi, fo.op, us, got, errs, t0, t1)
		}
		b.checkState(m, "step "+strconv.Itoa(step))
		if ttl {
			b.checkTTL()
		}
		if step%50 == 49 {
			b.checkReads(m, r)
		}
	}
}

// checkTTL checks that every existing key of the board expires within the hour.
func (b *board) checkTTL() {
	b.t.Helper()
	keys := b.V.MethodByName("Keys").Call(nil)[0].Interface().([]string)
	checkAckTTL(b.t, b.c, keys)
	for _, k := range boardKeys(keys) {
		d, err := b.c.PTTL(ctx, k).Result()
		if err != nil {
			b.t.Fatal(err)
		}
		if d == -2 { // absent
			continue
		}
		if d <= 59*time.Minute || d > time.Hour {
			b.t.Fatalf("PTTL %s = %v; want about an hour", k, d)
		}
	}
}

// checkReads compares every read with the model.
func (b *board) checkReads(m *boardmodel.Model, r *rand.Rand) {
	b.t.Helper()
	l := b.ex.l
	sorted := m.Sorted()
	ranked := func(out []reflect.Value, what string) []layout.Entry {
		b.t.Helper()
		if err := boardmodel.ErrOf(out[len(out)-1]); err != nil {
			b.t.Fatalf("%s: %v", what, err)
		}
		var es []layout.Entry
		for i := 0; i < out[0].Len(); i++ {
			rv := out[0].Index(i)
			if rv.FieldByName("Rank").IsValid() {
				if rank := rv.FieldByName("Rank").Int(); rank < 1 {
					b.t.Fatalf("%s: rank %d", what, rank)
				}
				es = append(es, b.ex.interp(b.t, boardmodel.Embedded(rv, "Entry")))
			} else {
				es = append(es, b.ex.interp(b.t, rv))
			}
		}
		return es
	}
	same := func(what string, got, want []layout.Entry) {
		b.t.Helper()
		if len(got) != len(want) {
			b.t.Fatalf("%s: %d entries, want %d", what, len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID || !slices.Equal(got[i].Keys, want[i].Keys) {
				b.t.Fatalf("%s: entry %d = %q %s, want %q %s", what, i, got[i].ID, fmtKeys(l, got[i].Keys), want[i].ID, fmtKeys(l, want[i].Keys))
			}
		}
	}
	out := b.call("Count")
	if boardmodel.ErrOf(out[1]) != nil || out[0].Int() != m.Count() {
		b.t.Fatalf("Count = %d, want %d", out[0].Int(), m.Count())
	}
	same("Top", ranked(b.call("Top", int64(len(sorted)+3)), "Top"), m.Page(0, int64(len(sorted)+3)))
	same("Page(2,3)", ranked(b.call("Page", int64(2), int64(3)), "Page"), m.Page(2, 3))
	// After pages through the whole board, 3 at a time.
	cur := reflect.New(b.V.MethodByName("After").Type().In(1)).Elem()
	var all []layout.Entry
	for i := 0; i < 20; i++ {
		out := b.call("After", cur, int64(3))
		page := ranked([]reflect.Value{out[0], out[2]}, "After")
		want, err := m.After(cur.FieldByName("Score").Float(), cur.FieldByName("Member").String(), 3)
		if err != nil {
			b.t.Fatal(err)
		}
		same("After page", page, want)
		if len(page) == 0 {
			break
		}
		for j := 0; j < out[0].Len(); j++ {
			if got, want := out[0].Index(j).FieldByName("Rank").Int(), int64(len(all)+j+1); got != want {
				b.t.Fatalf("After: rank %d, want %d", got, want)
			}
		}
		all = append(all, page...)
		cur = out[1]
	}
	same("After", all, sorted)
	b.checkMoreReads(m, r)
	for pos, e := range sorted {
		id := boardmodel.ID(b.ex.l, e.ID)
		out := b.call("Get", id)
		if err := boardmodel.ErrOf(out[1]); err != nil {
			b.t.Fatalf("Get(%q): %v", e.ID, err)
		}
		want, err := m.Get(e.ID)
		if err != nil {
			b.t.Fatalf("model Get(%q): %v", e.ID, err)
		}
		same("Get", []layout.Entry{b.ex.interp(b.t, out[0])}, []layout.Entry{want})
		out = b.call("Rank", id)
		if rank, _ := m.Rank(e.ID); boardmodel.ErrOf(out[1]) != nil || out[0].Int() != rank || rank != int64(pos+1) {
			b.t.Fatalf("Rank(%q) = %d, %v; want %d", e.ID, out[0].Int(), boardmodel.ErrOf(out[1]), pos+1)
		}
		before, after := int64(r.IntN(3)), int64(r.IntN(3))
		window, _ := m.Around(e.ID, before, after)
		same("Around", ranked(b.call("Around", id, before, after), "Around"), window)
		if l.NumScore > 0 {
			want, _ := m.Competition(e.ID)
			out := b.call("CompetitionRank", id)
			if boardmodel.ErrOf(out[1]) != nil || out[0].Int() != want {
				b.t.Fatalf("CompetitionRank(%q) = %d, %v; want %d", e.ID, out[0].Int(), boardmodel.ErrOf(out[1]), want)
			}
		}
	}
	// A missing id.
	missing := b.ex.ids()[0]
	if _, ok := m.Entries[missing]; !ok {
		for _, method := range []string{"Get", "Rank", "CompetitionRank"} {
			if l.NumScore == 0 && method == "CompetitionRank" {
				continue
			}
			out := b.call(method, boardmodel.ID(b.ex.l, missing))
			if err := boardmodel.ErrOf(out[1]); !errors.Is(err, rankgenrt.ErrNotFound) {
				b.t.Fatalf("%s(missing) error %v, want ErrNotFound", method, err)
			}
		}
	}
	// Range on the leading field.
	if l.NumScore > 0 && len(sorted) > 0 {
		lead := l.Fields[0]
		a, c := sorted[r.IntN(len(sorted))].Keys[0], sorted[r.IntN(len(sorted))].Keys[0]
		lo, hi := min(a, c), max(a, c)
		want, err := m.Range(lo, hi, 0, 100)
		if err != nil {
			b.t.Fatal(err)
		}
		got := ranked(b.call("Range"+lead.Name, b.ex.value(b.t, 0, lo), b.ex.value(b.t, 0, hi), int64(0), int64(100)), "Range")
		same("Range"+lead.Name, got, want)
	}
}

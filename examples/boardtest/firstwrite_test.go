package boardtest

import (
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// TestFirstMinMaxTakesValue checks, on every example's board on the real server (a periodic
// one's of the season that holds Redis's clock: liveSeason), that the
// first min or max of an id without an entry stores the value submitted (not min or max
// against the zero entry), the other unstamped fields at their zero, in the single and the
// batch form; and that a second update in the same batch then compares with it.
func TestFirstMinMaxTakesValue(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { firstMinMaxTakesValue(t, tg.Client) })
}

func firstMinMaxTakesValue(t *testing.T, c redis.UniversalClient) {
	for _, ex := range withPeriodic() {
		l := parse(t, ex.schema)
		for fi, f := range l.Fields {
			for _, op := range f.Updates {
				if op != layout.OpMax && op != layout.OpMin || !stampsNow(l, fi) {
					continue // not a best-of update, or the board cannot stamp now: every write fails
				}
				t.Run(ex.name+"/"+boardmodel.MethodName(f, op), func(t *testing.T) {
					b := boardmodel.NewBoard(l, liveBoard(t, c, ex, redistest.Key(t, "first")))
					firstWrite(t, l, b, fi, op)
				})
			}
		}
	}
}

// stampsNow reports whether every stamped field but field fi can hold the present instant (a
// season-anchored one can, on the board of liveSeason).
func stampsNow(l *layout.Layout, fi int) bool {
	for i, g := range l.Fields {
		if g.Stamp != layout.StampNone && i != fi && !g.Season {
			now, _ := layout.TimeUnits(time.Now(), g.Unit)
			if now < g.MinInt() || now > g.MaxInt() {
				return false
			}
		}
	}
	return true
}

// farFromZero is the key of field f that a min or max against the zero entry would not keep:
// the value the old semantics lost.
func farFromZero(f *layout.Field, zero uint64, op layout.Op) uint64 {
	keepsZero := func(k uint64) bool { return (op == layout.OpMin && zero <= k) || (op == layout.OpMax && zero >= k) }
	for _, k := range []uint64{f.Hi, f.Lo, f.Hi - 1, f.Lo + 1} {
		if k >= f.Lo && k <= f.Hi && k != zero && keepsZero(k) {
			return k
		}
	}
	return f.Hi
}

func firstWrite(t *testing.T, l *layout.Layout, b *boardmodel.Board, fi int, op layout.Op) {
	f, zero := l.Fields[fi], boardmodel.Zero(l)
	v := farFromZero(f, zero[fi], op)
	check := func(what string, got layout.Entry, want uint64) {
		t.Helper()
		for i, g := range l.Fields {
			w := zero[i]
			if i == fi {
				w = want
			} else if g.Stamp != layout.StampNone {
				continue // set to now; the differential tests check stamps
			}
			if got.Keys[i] != w {
				t.Errorf("%s: %s = %s; want %s", what, g.Name, g.Format(got.Keys[i]), g.Format(w))
			}
		}
	}
	id := idOf(l, "7")
	got, err := b.Update(id, boardmodel.Update{Field: fi, Op: op, Key: v})
	if err != nil {
		t.Fatal(err)
	}
	check("single", got.Entry, v)
	// The batch: the first update of a new id takes its value, the second compares with it.
	id2 := idOf(l, "8")
	w := f.Lo
	if op == layout.OpMin {
		w = f.Hi
	}
	res, err := b.UpdateMany([]string{id2, id2}, []boardmodel.Update{{Field: fi, Op: op, Key: v}, {Field: fi, Op: op, Key: w}})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("batch[%d]: %v", i, r.Err)
		}
		check("batch", r.Entry, v)
	}
}

// idOf is a valid id of l from digits.
func idOf(l *layout.Layout, digits string) string {
	if l.IDType == layout.IDUint64 {
		return digits
	}
	return "id" + digits
}

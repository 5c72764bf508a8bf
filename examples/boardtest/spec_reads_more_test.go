package boardtest

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// checkMoreReads compares GetMany, RankMany, Bottom, PageFromEnd, AroundFilled, Percentile,
// PageOf, CompetitionRankTuple, DenseRank and Count<Lead>Between with the model, on the board as the random writes
// left it.
func (b *board) checkMoreReads(m *boardmodel.Model, r *rand.Rand) {
	b.t.Helper()
	l := b.ex.l
	sorted := m.Sorted()
	ids := slices.Clone(b.ex.ids()) // present and missing ids, with a repeat
	never := "nobody"               // an id no write uses
	if l.IDType == layout.IDUint64 {
		never = "5"
	}
	ids = append(ids, ids[r.IntN(len(ids))], never)
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = boardmodel.ID(l, id)
	}
	want, found := m.GetMany(ids...)
	out := b.call("GetMany", args...)
	if err := boardmodel.ErrOf(out[1]); err != nil || out[0].Len() != len(ids) {
		b.t.Fatalf("GetMany(%d ids) = %d results, %v", len(ids), out[0].Len(), err)
	}
	for i := range ids {
		res := out[0].Index(i)
		err := boardmodel.ErrOf(res.FieldByName("Err"))
		if !found[i] {
			if !errors.Is(err, rankgenrt.ErrNotFound) {
				b.t.Fatalf("GetMany[%d] (%q, no entry): error %v, want ErrNotFound", i, ids[i], err)
			}
			continue
		}
		if got := b.ex.interp(b.t, boardmodel.Embedded(res, "Entry")); err != nil || got.ID != want[i].ID || !slices.Equal(got.Keys, want[i].Keys) {
			b.t.Fatalf("GetMany[%d] = %q %s, %v; want %q %s", i, got.ID, fmtKeys(l, got.Keys), err, ids[i], fmtKeys(l, want[i].Keys))
		}
	}
	out = b.call("RankMany", args...)
	if got, err := out[0].Interface().([]int64), boardmodel.ErrOf(out[1]); err != nil || !slices.Equal(got, m.RankMany(ids...)) {
		b.t.Fatalf("RankMany = %v, %v; want %v", got, err, m.RankMany(ids...))
	}
	n := int64(len(sorted))
	for _, page := range [][2]int64{{0, 3}, {0, n + 2}, {1, 2}, {n - 1, 3}, {n, 1}, {2, 0}} { // a negative offset: TestReadsRefuseNegativeOffsets
		first, wantPage, _ := m.PageFromEnd(page[0], page[1])
		out := b.call("PageFromEnd", page[0], page[1])
		b.sameRanked("PageFromEnd", out, first, wantPage)
		if page[0] == 0 {
			b.sameRanked("Bottom", b.call("Bottom", page[1]), first, wantPage)
		}
	}
	for _, e := range sorted {
		id := boardmodel.ID(l, e.ID)
		before, after := int64(r.IntN(4)), int64(r.IntN(4))
		window, _ := m.AroundFilled(e.ID, before, after)
		first := int64(0)
		if len(window) > 0 {
			first, _ = m.Rank(window[0].ID)
		}
		b.sameRanked("AroundFilled", b.call("AroundFilled", id, before, after), first, window)
		rank, count, _ := m.Standing(e.ID)
		out := b.call("Percentile", id)
		if want := 100 * float64(count-rank) / float64(count); boardmodel.ErrOf(out[1]) != nil || out[0].Float() != want {
			b.t.Fatalf("Percentile(%q) = %v, %v; want %v", e.ID, out[0].Float(), boardmodel.ErrOf(out[1]), want)
		}
		if l.NumScore > 0 {
			b.sameRank("CompetitionRankTuple", e.ID, b.call("CompetitionRankTuple", id), m.CompetitionTuple)
			b.sameRank("DenseRank", e.ID, b.call("DenseRank", id), m.Dense)
		}
		size := int64(1 + r.IntN(4))
		out = b.call("PageOf", id, size)
		if want := (rank-1)/size + 1; boardmodel.ErrOf(out[1]) != nil || out[0].Int() != want {
			b.t.Fatalf("PageOf(%q, %d) = %d, %v; want %d", e.ID, size, out[0].Int(), boardmodel.ErrOf(out[1]), want)
		}
	}
	if l.NumScore > 0 && len(sorted) > 0 {
		lead := l.Fields[0]
		a, c := sorted[r.IntN(len(sorted))].Keys[0], sorted[r.IntN(len(sorted))].Keys[0]
		for _, band := range [][2]uint64{{min(a, c), max(a, c)}, {max(a, c), min(a, c)}, {lead.Lo, lead.Hi}} {
			want, err := m.CountRange(band[0], band[1])
			if err != nil {
				b.t.Fatal(err)
			}
			out := b.call("Count"+lead.Name+"Between", b.ex.value(b.t, 0, band[0]), b.ex.value(b.t, 0, band[1]))
			if boardmodel.ErrOf(out[1]) != nil || out[0].Int() != want {
				b.t.Fatalf("Count%sBetween(%s, %s) = %d, %v; want %d", lead.Name, lead.Format(band[0]), lead.Format(band[1]), out[0].Int(), boardmodel.ErrOf(out[1]), want)
			}
		}
	}
	missing := b.ex.ids()[0]
	if _, ok := m.Entries[missing]; !ok {
		calls := [][]any{{"Percentile"}, {"PageOf", int64(3)}, {"AroundFilled", int64(1), int64(1)}}
		if l.NumScore > 0 {
			calls = append(calls, []any{"CompetitionRankTuple"}, []any{"DenseRank"})
		}
		for _, call := range calls {
			out := b.call(call[0].(string), append([]any{boardmodel.ID(l, missing)}, call[1:]...)...)
			if err := boardmodel.ErrOf(out[len(out)-1]); !errors.Is(err, rankgenrt.ErrNotFound) {
				b.t.Fatalf("%s(missing) error %v, want ErrNotFound", call[0], err)
			}
		}
	}
	if out := b.call("PageOf", boardmodel.ID(l, ids[0]), int64(0)); !errors.Is(boardmodel.ErrOf(out[1]), rankgenrt.ErrOutOfRange) {
		b.t.Fatalf("PageOf(id, 0) error %v, want ErrOutOfRange", boardmodel.ErrOf(out[1]))
	}
}

// sameRanked checks a []Ranked reply against the model's entries, the first ranked first.
func (b *board) sameRanked(what string, out []reflect.Value, first int64, want []layout.Entry) {
	b.t.Helper()
	if err := boardmodel.ErrOf(out[1]); err != nil || out[0].Len() != len(want) {
		b.t.Fatalf("%s: %d entries, %v; want %d", what, out[0].Len(), err, len(want))
	}
	for i, w := range want {
		rv := out[0].Index(i)
		got := b.ex.interp(b.t, boardmodel.Embedded(rv, "Entry"))
		if rank := rv.FieldByName("Rank").Int(); rank != first+int64(i) || got.ID != w.ID || !slices.Equal(got.Keys, w.Keys) {
			b.t.Fatalf("%s[%d] = rank %d %q %s; want rank %d %q %s", what, i, rank, got.ID, fmtKeys(b.ex.l, got.Keys), first+int64(i), w.ID, fmtKeys(b.ex.l, w.Keys))
		}
	}
}

// sameRank checks a rank reply for id against the model's.
func (b *board) sameRank(what, id string, out []reflect.Value, model func(string) (int64, error)) {
	b.t.Helper()
	want, _ := model(id)
	if err := boardmodel.ErrOf(out[1]); err != nil || out[0].Int() != want {
		b.t.Fatalf("%s(%q) = %d, %v; want %d", what, id, out[0].Int(), err, want)
	}
}

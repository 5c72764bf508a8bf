package boardtest

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// offsetReads are the catalogued reads that take an offset and a limit (their last two
// arguments), by kind; readsWithoutOffset the others. A read the catalogue gains fails
// TestReadsRefuseNegativeOffsets until it is listed in one of them.
var (
	offsetReads        = map[catalog.Kind]bool{catalog.Page: true, catalog.Bottom: true, catalog.Range: true, catalog.Band: true}
	readsWithoutOffset = map[catalog.Kind]bool{catalog.Get: true, catalog.Rank: true, catalog.Around: true, catalog.After: true,
		catalog.Count: true, catalog.Competition: true, catalog.GetMany: true, catalog.RankMany: true, catalog.RankedMany: true, catalog.Standing: true,
		catalog.Dense: true, catalog.CountRange: true, catalog.CountBand: true, catalog.AroundScore: true}
)

// TestReadsRefuseNegativeOffsets: every catalogued read at an offset (Page, PageFromEnd,
// Range<F>, Between), on every example board, periodic ones included, and on a ShardedBoard,
// refuses a negative offset with a *RangeError naming it (ErrOutOfRange), as PageOf refuses a
// pageSize below 1, before anything reaches Redis — the board's key holds a string, which any
// command would answer with WRONGTYPE; a limit of 0 is an empty page, not an error.
func TestReadsRefuseNegativeOffsets(t *testing.T) {
	c := redistest.Client(t)
	exs := specExamples(t)
	for _, ex := range exs {
		b := ex.board(t, c, redistest.Key(t, "{"+ex.name+"}"))
		if err := c.Set(ctx, b.Keys()[0], "not a board", 0).Err(); err != nil {
			t.Fatal(err)
		}
		for _, op := range catalog.Ops(ex.l) {
			if !op.ReadOnly {
				continue
			}
			if !offsetReads[op.Kind] && !readsWithoutOffset[op.Kind] {
				t.Fatalf("%s: read %s (%v) is in neither offsetReads nor readsWithoutOffset", ex.name, op.Name, op.Methods)
			}
			if offsetReads[op.Kind] {
				checkNegativeOffset(t, ex.name, b.Board, ex, op.Methods[len(op.Methods)-1])
			}
		}
	}
	i := slices.IndexFunc(exs, func(ex *specExample) bool { return ex.name == "seed002decimal" }) // sharded: true
	if i < 0 {
		t.Fatal("no seed002decimal example")
	}
	sb, err := seed002decimal.NewShardedBoard(c, redistest.Key(t, "seed002decimal-sharded"), 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"Page", "PageFromEnd", "Between"} {
		checkNegativeOffset(t, "seed002decimal sharded", boardmodel.NewBoard(exs[i].l, sb), exs[i], m)
	}
}

// checkNegativeOffset calls method with valid leading arguments (the leading field's lowest
// value for a range, the empty Band), offset −1 and limit 10, then offset 0 and limit 0.
func checkNegativeOffset(t *testing.T, name string, b *boardmodel.Board, ex *specExample, method string) {
	t.Helper()
	mt := b.V.MethodByName(method).Type()
	var args []any
	for i := 1; i < mt.NumIn()-2; i++ { // after ctx, before offset and limit
		if method == "Between" {
			args = append(args, reflect.Zero(mt.In(i)))
		} else {
			args = append(args, ex.value(t, 0, 0))
		}
	}
	out := b.Call(method, append(args, int64(-1), int64(10))...)
	var re *rankgenrt.RangeError
	if err := boardmodel.ErrOf(out[len(out)-1]); !errors.As(err, &re) || re.Field != "offset" || re.Value != "-1" || !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Errorf("%s %s at offset -1: %v; want a RangeError of the offset", name, method, err)
	}
	out = b.Call(method, append(args, int64(0), int64(0))...)
	if err := boardmodel.ErrOf(out[len(out)-1]); err != nil || out[0].Len() != 0 {
		t.Errorf("%s %s with limit 0: %d entries, %v; want none", name, method, out[0].Len(), err)
	}
}

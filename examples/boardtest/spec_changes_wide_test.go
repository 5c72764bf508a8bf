package boardtest

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestWideMemberChanges runs the changes script of a layout whose member fields reach beyond
// Lua's exact 2^53 (64-bit hex and 19-digit decimal texts: set, max, min and two-limb add) with
// random change lists, against the model (boardmodel.Model.Changes).
func TestWideMemberChanges(t *testing.T) {
	src := []byte(`package: wide
id: {name: ID}
fields:
  - {name: Points, type: uint, bits: 20, order: desc, update: [add]}
  - {name: Big, type: uint, bits: 64, order: asc, in: member, update: [set, max, min]}
  - {name: Dec, type: uint, digits: 19, order: asc, in: member, update: [add], overflow: saturate}
  - {name: Neg, type: int, bits: 64, order: desc, in: member, update: [add, min]}
`)
	l, err := layout.Parse("wide.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := luaemit.Render(l)
	if err != nil {
		t.Fatal(err)
	}
	script := rankgenrt.NewLibrary(lib.Source).Function("changes")
	c := redistest.Client(t)
	key := redistest.Key(t, "{widechanges}")
	keys := scriptKeys(l, key)
	m := boardmodel.New(l)
	ups := catalog.FieldUpdates(l)
	rng := rand.New(rand.NewPCG(9, 9))
	noStamp := func(int) (uint64, error) { return 0, errors.New("no stamped field") }
	applied, refused := 0, 0
	for step := range 300 {
		id := []string{"a", "b", "c"}[rng.IntN(3)]
		args := []any{"", 0, "", "0", "", id} // no expiry, dedup off, no clock; one id
		var list []boardmodel.Update
		used := map[*layout.Field]bool{}
		for _, u := range ups {
			if used[u.Field] || rng.IntN(2) == 0 {
				args = append(args, "")
				continue
			}
			used[u.Field] = true
			fi := indexOf(l, u.Field)
			ch := boardmodel.Update{Field: fi, Op: u.Update}
			if u.Update == layout.OpAdd {
				ch.Delta = []int64{math.MaxInt64, math.MinInt64, 1, -1, 1 << 32, -(1 << 40), int64(rng.Uint64())}[rng.IntN(7)]
			} else {
				ch.Key = u.Field.Lo + rng.Uint64N(u.Field.Hi-u.Field.Lo)
			}
			args = append(args, argOf(u.Field, ch))
			list = append(list, ch)
		}
		v, err := rankgenrt.Call(ctx, c, script, keys, args...)
		if err != nil {
			t.Fatal(err)
		}
		items, err := rankgenrt.Items(v, 1)
		if err != nil {
			t.Fatal(err)
		}
		want, werr := m.Changes(id, list, noStamp)
		if !boardmodel.SameError(items[0].Err, werr) {
			t.Fatalf("step %d %v: board %v, model %v", step, list, items[0].Err, werr)
		}
		if werr != nil {
			refused++
			continue
		}
		applied++
		score, member, err := l.Encode(want.Entry)
		if err != nil {
			t.Fatal(err)
		}
		if items[0].Member != member || math.Float64bits(l.ScoreOf(items[0].P)) != math.Float64bits(score) {
			t.Fatalf("step %d %v: got %q %v, want %q %v", step, list, items[0].Member, items[0].P, member, score)
		}
	}
	if applied < 50 || refused < 20 {
		t.Errorf("%d lists applied, %d refused: the random lists miss one of the two outcomes", applied, refused)
	}
	t.Logf("%d lists applied, %d refused (an add overflowing)", applied, refused)
}

func indexOf(l *layout.Layout, f *layout.Field) int {
	for i, g := range l.Fields {
		if g == f {
			return i
		}
	}
	return -1
}

// argOf is a change's argument as the generated code sends it: the delta (two limbs for a wide
// member field), or the digit of the new value (its text for a wide member field).
func argOf(f *layout.Field, u boardmodel.Update) any {
	wide := f.Place == layout.InMember && f.Span() >= 1<<53
	switch {
	case u.Op == layout.OpAdd && wide:
		return rankgenrt.WideDelta(u.Delta, f.Hex)
	case u.Op == layout.OpAdd:
		return u.Delta
	case wide:
		return rankgenrt.DigitText(f.Digit(u.Key), f.TextWidth, f.Hex)
	}
	return f.Digit(u.Key)
}

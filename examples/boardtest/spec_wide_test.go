package boardtest

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestWideMemberField runs the set/max/min scripts of a 64-bit member field (digits beyond
// Lua's exact 2^53, so the scripts handle its text) and compares with the interpreted codec.
func TestWideMemberField(t *testing.T) {
	src := []byte(`package: wide
id: {name: ID}
fields:
  - {name: Points, type: uint, bits: 20, order: desc}
  - {name: Big, type: uint, bits: 64, order: asc, in: member, update: [set, max, min]}
`)
	l, err := layout.Parse("wide.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := luaemit.Render(l)
	if err != nil {
		t.Fatal(err)
	}
	byOp := map[string]*rankgenrt.Function{}
	for _, fn := range lib.Functions {
		byOp[fn.Op] = rankgenrt.NewLibrary(lib.Source).Function(fn.Op)
	}
	c := redistest.Client(t)
	key := redistest.Key(t, "{wide}")
	keys := scriptKeys(l, key)
	big := l.Fields[1]
	cur := layout.Entry{ID: "a", Keys: boardmodel.Zero(l)}
	for _, step := range []struct {
		op  string
		key uint64
	}{
		{"set_big", math.MaxUint64}, {"max_big", 5}, {"max_big", math.MaxUint64 - 1}, {"min_big", 3},
		{"min_big", 1 << 60}, {"set_big", 1<<53 + 1}, {"max_big", 1<<53 + 2}, {"set_big", 0},
	} {
		text := rankgenrt.DigitText(big.Digit(step.key), big.TextWidth, big.Hex)
		v, err := rankgenrt.Call(ctx, c, byOp[step.op], keys, "", 0, "", "0", "", "a", text) // no expiry, dedup off, no clock
		if err != nil {
			t.Fatalf("%s(%d): %v", step.op, step.key, err)
		}
		items, err := rankgenrt.Items(v, 1)
		if err != nil || items[0].Err != nil {
			t.Fatalf("%s(%d): %v %v", step.op, step.key, err, items)
		}
		switch step.op {
		case "set_big":
			cur.Keys[1] = step.key
		case "max_big":
			cur.Keys[1] = max(cur.Keys[1], step.key)
		case "min_big":
			cur.Keys[1] = min(cur.Keys[1], step.key)
		}
		score, member, err := l.Encode(cur)
		if err != nil {
			t.Fatal(err)
		}
		if items[0].Member != member || math.Float64bits(l.ScoreOf(items[0].P)) != math.Float64bits(score) {
			t.Fatalf("%s(%d): got %q %v, want %q %v", step.op, step.key, items[0].Member, items[0].P, member, score)
		}
		if got := c.ZScore(ctx, key, member).Val(); got != score {
			t.Fatalf("%s: stored score %v", step.op, got)
		}
	}
	// A malformed text is refused.
	v, err := rankgenrt.Call(ctx, c, byOp["set_big"], keys, "", 0, "", "0", "", "a", "zz")
	if err != nil {
		t.Fatal(err)
	}
	if items, _ := rankgenrt.Items(v, 1); items[0].Err == nil {
		t.Fatal("malformed text accepted")
	}
}

// TestWideMemberAdd runs add on 64-bit hex and 19-digit decimal member fields (two-limb
// arithmetic in Lua) against a big-integer model, both orders, error and saturate.
func TestWideMemberAdd(t *testing.T) {
	src := []byte(`package: wide
id: {name: ID}
fields:
  - {name: Points, type: uint, bits: 20, order: desc}
  - {name: Big, type: uint, bits: 64, order: desc, in: member, update: [add]}
  - {name: Dec, type: uint, digits: 19, order: asc, in: member, update: [add], overflow: saturate}
  - {name: Neg, type: int, bits: 64, order: asc, in: member, update: [add]}
`)
	l, err := layout.Parse("wide.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := luaemit.Render(l)
	if err != nil {
		t.Fatal(err)
	}
	byOp := map[string]*rankgenrt.Function{}
	for _, fn := range lib.Functions {
		byOp[fn.Op] = rankgenrt.NewLibrary(lib.Source).Function(fn.Op)
	}
	c := redistest.Client(t)
	key := redistest.Key(t, "{wideadd}")
	keys := scriptKeys(l, key)
	cur := layout.Entry{ID: "a", Keys: boardmodel.Zero(l)}
	rng := rand.New(rand.NewPCG(7, 7))
	deltas := []int64{math.MaxInt64, math.MinInt64, 1, -1, 0, 1 << 32, -(1 << 32), 1e9, -1e9, 4294967295, -4294967296}
	for step := 0; step < 400; step++ {
		fi := 1 + rng.IntN(3)
		f := l.Fields[fi]
		delta := deltas[rng.IntN(len(deltas))]
		if rng.IntN(2) == 0 {
			delta = int64(rng.Uint64())
		}
		op := "add_" + map[int]string{1: "big", 2: "dec", 3: "neg"}[fi]
		v, err := rankgenrt.Call(ctx, c, byOp[op], keys, "", 0, "", "0", "", "a", rankgenrt.WideDelta(delta, f.Hex)) // no expiry, dedup off, no clock
		if err != nil {
			t.Fatal(err)
		}
		items, err := rankgenrt.Items(v, 1)
		if err != nil {
			t.Fatal(err)
		}
		// The model, in big integers on digits.
		d := new(big.Int).SetUint64(f.Digit(cur.Keys[fi]))
		dd := big.NewInt(delta)
		if f.Order == layout.Asc {
			dd.Neg(dd)
		}
		d.Add(d, dd)
		span := new(big.Int).SetUint64(f.Span())
		overflow := d.Sign() < 0 || d.Cmp(span) > 0
		if overflow && f.Overflow == layout.OverflowError {
			if !errors.Is(items[0].Err, rankgenrt.ErrOverflow) {
				t.Fatalf("step %d %s(%d): %v, want ErrOverflow", step, op, delta, items[0].Err)
			}
			continue
		}
		if overflow {
			if d.Sign() < 0 {
				d.SetInt64(0)
			} else {
				d.Set(span)
			}
		}
		if items[0].Err != nil {
			t.Fatalf("step %d %s(%d): %v", step, op, delta, items[0].Err)
		}
		cur.Keys[fi] = f.Key(d.Uint64())
		_, member, err := l.Encode(cur)
		if err != nil {
			t.Fatal(err)
		}
		if items[0].Member != member {
			t.Fatalf("step %d %s(%d): member %q, want %q", step, op, delta, items[0].Member, member)
		}
	}
}

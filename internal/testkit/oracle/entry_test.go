package oracle

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
)

const bridgeSchema = `package: p
id: {name: ID}
separator: "::"
fields:
  - {name: Score, type: int, min: -100, max: 100, order: desc}
  - {name: Tier, type: enum, values: [a, b, c], order: asc}
  - {name: At, type: time, unit: ms, epoch: 2026-01-01T00:00:00Z, bits: 30, order: asc}
  - {name: Paid, type: bool, order: desc}
  - {name: Wins, type: uint, min: 5, max: 300, order: desc, in: member}
`

// bridgeEntry is what goemit generates for bridgeSchema (field names and Go types).
type bridgeEntry struct {
	ID    string
	Score int8
	Tier  uint8
	At    time.Time
	Paid  bool
	Wins  uint16
}

func TestBridgeRoundTrip(t *testing.T) {
	l, err := layout.Parse("p.yaml", []byte(bridgeSchema))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	edges := 0
	for range 5000 {
		e := RandomEntry(l, rng)
		for i, f := range l.Fields {
			if err := f.Check(e.Keys[i]); err != nil {
				t.Fatalf("RandomEntry key out of range: %v", err)
			}
			if e.Keys[i] == f.Lo || e.Keys[i] == f.Hi {
				edges++
			}
		}
		if err := l.CheckID(e.ID); err != nil {
			t.Fatalf("RandomEntry id: %v", err)
		}
		var g bridgeEntry
		ToGenerated(l, e, &g)
		if back := FromGenerated(l, g); !reflect.DeepEqual(back, e) {
			t.Fatalf("FromGenerated(ToGenerated(%v)) = %v", e, back)
		}
		if back := FromGenerated(l, &g); !reflect.DeepEqual(back, e) {
			t.Fatalf("FromGenerated(&ToGenerated(%v)) = %v", e, back)
		}
	}
	if edges < 2000 {
		t.Errorf("only %d edge keys in 25000: RandomEntry should favour the edges", edges)
	}
	// Out-of-range keys survive the trip where the Go type holds them.
	for i, f := range l.Fields {
		for _, k := range OutOfRange(f) {
			if f.Check(k) == nil || !Representable(f, k) {
				t.Fatalf("%s: OutOfRange key %d is in range or not representable", f.Name, k)
			}
			e := RandomEntry(l, rng)
			e.Keys[i] = k
			var g bridgeEntry
			ToGenerated(l, e, &g)
			if back := FromGenerated(l, g); back.Keys[i] != k {
				t.Fatalf("%s: key %d came back as %d", f.Name, k, back.Keys[i])
			}
		}
	}
	if len(OutOfRange(l.Fields[3])) != 0 {
		t.Errorf("a bool has no out-of-range values")
	}
	// A time beyond int64 milliseconds is out of range, not wrapped into it.
	g := bridgeEntry{ID: "x", At: time.Unix(math.MaxInt64/1000, 0), Wins: 5}
	if k := FromGenerated(l, g).Keys[2]; l.Fields[2].Check(k) == nil {
		t.Errorf("absurd time mapped into the range: key %d", k)
	}
}

func TestRandomIDUint64(t *testing.T) {
	l, err := layout.Parse("p.yaml", []byte("package: p\nid: {name: ID, type: uint64}\nfields:\n  - {name: A, type: bool, order: desc}\n"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[string]bool{}
	for range 2000 {
		id := RandomID(l, rng)
		if err := l.CheckID(id); err != nil {
			t.Fatal(err)
		}
		seen[id] = true
	}
	for _, want := range []string{"9", "10", "18446744073709551615"} {
		if !seen[want] {
			t.Errorf("RandomID never drew %s", want)
		}
	}
}

package tstest

import (
	"errors"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"unicode/utf8"

	"encoding/json"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/tsemit"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

type writeOp struct {
	Op     string         `json:"op"`
	Entry  map[string]any `json:"entry,omitempty"`
	Method string         `json:"method,omitempty"`
	Field  int            `json:"field"`
	ID     string         `json:"id,omitempty"`
	Value  any            `json:"value,omitempty"`
	Key    string         `json:"key,omitempty"`
}

// TestWritesEqualGo runs the same writes on two boards of every example that is not periodic,
// one through the Go package and one through the TypeScript module: set (with data) and every
// field update the module has, on new and present ids, with deltas that overflow, and values
// out of range. Each write's answer (the entry after and before, existed, changed, or the
// error) and the boards' contents must agree, stamped fields aside (each board stamps its own
// clock). A resend under an idempotency key answers the first reply without writing again; a
// different write under it is refused; one whose reply was lost after it ran (UncertainError)
// and is resent twice under its token is applied once.
func TestWritesEqualGo(t *testing.T) {
	dist := buildModules(t)
	c := redistest.Client(t)
	for _, ex := range examples() {
		if ex.SeasonAt != nil {
			continue // periodic boards are written from Go only (docs/typescript.md); the module has no writes to test
		}
		t.Run(ex.Name, func(t *testing.T) {
			l := ex.Layout(t)
			h := fnv.New64a()
			h.Write([]byte(ex.Name))
			rng := rand.New(rand.NewPCG(3, h.Sum64()))
			g, _ := goBoard(t, ex, c, l, "go")
			ops, want := writeOps(t, g, l, rng)
			var got []any
			runHarness(t, dist, "writes", writesInput{Module: modulePath(dist, ex), Addr: c.Options().Addr, Key: redistest.Key(t, "ts"), Ops: ops}, &got)
			want = normalize(t, want)
			if len(got) != len(want) {
				t.Fatalf("harness answered %d writes, want %d", len(got), len(want))
			}
			stamped := map[string]bool{}
			props, _ := tsemit.Props(l)
			for _, f := range l.Fields {
				if f.Stamp != layout.StampNone {
					stamped[props[f.Name]] = true
				}
			}
			for i := range want {
				gi, wi := got[i], want[i]
				if ops[i].Op == "top" && len(stamped) > 0 {
					gi, wi = byID(l, gi), byID(l, wi) // the stamps may order the boards differently
				}
				gi, wi = mask(gi, stamped), mask(wi, stamped)
				if !reflect.DeepEqual(gi, wi) {
					gj, _ := json.Marshal(gi)
					wj, _ := json.Marshal(wi)
					t.Errorf("write %d %+v:\n TypeScript: %.800s\n Go:         %.800s", i, ops[i], gj, wj)
				}
			}
		})
	}
}

type writesInput struct {
	Module string    `json:"module"`
	Addr   string    `json:"addr"`
	Key    string    `json:"key"`
	Ops    []writeOp `json:"ops"`
}

// writeOps draws the writes, performs them on the Go board g, and returns them with Go's
// answers, as the harness prints the TypeScript ones.
func writeOps(t *testing.T, g *boardmodel.Board, l *layout.Layout, rng *rand.Rand) ([]writeOp, []any) {
	var ops []writeOp
	var want []any
	var ids []string
	for range 25 {
		e := oracle.RandomEntry(l, rng)
		for l.IDType == layout.IDString && !utf8.ValidString(e.ID) {
			e.ID = oracle.RandomID(l, rng)
		}
		if len(ids) > 0 && rng.IntN(4) == 0 {
			e.ID = ids[rng.IntN(len(ids))] // replace an entry
		}
		if l.HasData() {
			e.Data = oracle.RandomData(l, rng)
		}
		w, err := g.Set(e)
		ops = append(ops, writeOp{Op: "set", Entry: fullEntryJSON(l, e)})
		want = append(want, writtenJSON(t, l, w, err, true))
		ids = append(ids, e.ID)
	}
	var updates []catalog.Op
	for _, op := range catalog.Ops(l) {
		if op.Kind == catalog.Update && !op.Batch && !op.Field.Season {
			updates = append(updates, op)
		}
	}
	for range 12 * len(updates) {
		op := updates[rng.IntN(len(updates))]
		f := op.Field
		i := slices.Index(l.Fields, f)
		id := ids[rng.IntN(len(ids))]
		if rng.IntN(5) == 0 {
			id = oracle.RandomID(l, rng)
			for l.IDType == layout.IDString && !utf8.ValidString(id) {
				id = oracle.RandomID(l, rng)
			}
		}
		u := boardmodel.Update{Field: i, Op: op.Update}
		o := writeOp{Op: "update", Method: tsemit.PropName(op.Methods[0]), Field: i, ID: id}
		if op.Update == layout.OpAdd {
			u.Delta = randomDelta(f, rng)
			o.Value = strconv.FormatInt(u.Delta, 10)
		} else {
			u.Key = oracle.RandomKey(f, rng)
			if rng.IntN(8) == 0 { // past the range, where the Go type holds it: refused before anything is sent
				for _, k := range oracle.OutOfRange(f) {
					if oracle.Representable(f, k) {
						u.Key = k
						break
					}
				}
			}
			if f.Kind == layout.Enum && u.Key >= uint64(len(f.Values)) {
				o.Value = "value " + strconv.FormatUint(u.Key, 10) // no value of the enum: refused as Go refuses its index
			} else {
				o.Value = valueJSON(f, u.Key)
			}
		}
		w, err := g.Update(id, u)
		ops = append(ops, o)
		want = append(want, writtenJSON(t, l, w, err, false))
	}
	// Exactly once: the same write resent under its key, then another write under it.
	e := oracle.RandomEntry(l, rng)
	e.ID = ids[0]
	if l.HasData() {
		e.Data = oracle.RandomData(l, rng)
	}
	w, err := g.Set(e)
	first := writtenJSON(t, l, w, err, true)
	other := e
	other.Keys = oracle.RandomEntry(l, rng).Keys
	ops = append(ops, writeOp{Op: "set", Entry: fullEntryJSON(l, e), Key: "once-1"}, writeOp{Op: "set", Entry: fullEntryJSON(l, e), Key: "once-1"},
		writeOp{Op: "set", Entry: fullEntryJSON(l, other), Key: "once-1"})
	want = append(want, first, first, map[string]any{"error": "TOKEN_REUSED"})
	// A write whose reply was lost (it ran), resent twice under its token: applied once.
	e = oracle.RandomEntry(l, rng)
	for l.IDType == layout.IDString && !utf8.ValidString(e.ID) {
		e.ID = oracle.RandomID(l, rng)
	}
	if l.HasData() {
		e.Data = oracle.RandomData(l, rng)
	}
	w, err = g.Set(e)
	once := writtenJSON(t, l, w, err, true)
	ops = append(ops, writeOp{Op: "uncertain", Entry: fullEntryJSON(l, e)})
	want = append(want, []any{"UNCERTAIN", once, once})
	top, err := g.Top(100000)
	if err != nil {
		t.Fatal(err)
	}
	ops = append(ops, writeOp{Op: "top"})
	want = append(want, rankedJSON(l, top))
	return ops, want
}

// randomDelta is an add's delta: small, or near the field's span (some overflow).
func randomDelta(f *layout.Field, rng *rand.Rand) int64 {
	span := int64(min(f.Span(), math.MaxInt64))
	switch rng.IntN(4) {
	case 0:
		return span
	case 1:
		return -span
	}
	return rng.Int64N(2001) - 1000
}

// writtenJSON is a write's answer as the harness prints it: the entry after it and the one
// before (their data too for set, whose entries carry it), existed and changed; or the error.
func writtenJSON(t *testing.T, l *layout.Layout, w boardmodel.Written, err error, set bool) any {
	if err != nil {
		return map[string]any{"error": writeCode(t, err)}
	}
	entry := entryJSON
	if set {
		entry = fullEntryJSON
	}
	out := map[string]any{"entry": entry(l, w.Entry), "existed": w.Existed, "changed": w.Changed}
	if w.Existed {
		out["before"] = entry(l, w.Before)
	}
	return out
}

func writeCode(t *testing.T, err error) string {
	switch {
	case errors.Is(err, rankgenrt.ErrOverflow):
		return "OVERFLOW"
	case errors.Is(err, rankgenrt.ErrTokenReused):
		return "TOKEN_REUSED"
	}
	return readCode(t, err)
}

// mask drops the stamped fields' values from v, a harness answer (recursively).
func mask(v any, stamped map[string]bool) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if !stamped[k] {
				out[k] = mask(x, stamped)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = mask(x, stamped)
		}
		return out
	}
	return v
}

// byID turns a top's answer into its entries by id, ranks left out.
func byID(l *layout.Layout, v any) any {
	rs, ok := v.([]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for _, r := range rs {
		e := r.(map[string]any)["entry"].(map[string]any)
		props, _ := tsemit.Props(l)
		out[e[props[l.IDName]].(string)] = e
	}
	return out
}

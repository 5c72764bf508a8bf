package pytest

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/pyemit"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// TestWrites: the same writes (set, best, insert, every field update, remove; a resend under
// one token and another call under it) by the Python board on one key and the Go board on
// another give the same results, errors included, and leave the same board: its sorted set, side
// key and data hash. Periodic layouts have no Python writes (docs/python.md says why).
func TestWrites(t *testing.T) {
	needPython(t)
	for i, ex := range exampleboards.All() {
		t.Run(ex.Name, func(t *testing.T) {
			t.Parallel()
			checkWrites(t, ex, rand.New(rand.NewPCG(5, uint64(i))))
		})
	}
}

func checkWrites(t *testing.T, ex exampleboards.Example, rng *rand.Rand) {
	c := redistest.Client(t)
	l := ex.Layout(t)
	dir, name := module(t, l)
	ops := writeOps(t, l, rng)

	goKey, pyKey := redistest.Key(t, ex.Name+"-go"), redistest.Key(t, ex.Name+"-py")
	want := goWrites(t, l, ex, reflect.ValueOf(ex.Board(c, goKey)), ops)

	opts := c.Options()
	req := map[string]any{"addr": opts.Addr, "db": opts.DB, "password": opts.Password, "key": pyKey,
		"id_uint": l.IDType == layout.IDUint64, "ops": ops}
	out := runPython(t, "writes.py", dir, name, writeJSON(t, req))
	var res struct {
		Results []any `json:"results"`
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	dec.UseNumber()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("writes.py: %v: %s", err, out)
	}
	got := normalize(res.Results).([]any)
	// Stamped fields hold the clock of each write (Redis's, or the client's), which differs
	// between the two runs: they are compared as the field's lowest value.
	maskStamps(t, l, want)
	maskStamps(t, l, got)
	compareReads(t, "", ops, want, got)
	if !strings.Contains(string(mustJSON(want)), "TOKEN_REUSED") {
		t.Errorf("the token reused was not refused: %s", mustJSON(want))
	}

	gk, pk := rankgenrt.IndexKey, rankgenrt.IndexKey
	if !l.HasPrefix() {
		gk, pk = rankgenrt.MetaKey, rankgenrt.MetaKey
	}
	sameBoard(t, c, l, goKey, pyKey, gk(goKey), pk(pyKey))
}

// stamped reports whether l has fields its writes stamp with a clock.
func stamped(l *layout.Layout) bool {
	for _, f := range l.Fields {
		if f.Stamp != layout.StampNone {
			return true
		}
	}
	return false
}

// maskPair is a (score, member) with every stamped field at its lowest value, re-encoded.
func maskPair(t *testing.T, l *layout.Layout, score float64, member string) (float64, string) {
	t.Helper()
	if !stamped(l) {
		return score, member
	}
	e, err := l.Decode(score, member)
	if err != nil {
		t.Fatalf("decode (%v, %q): %v", score, member, err)
	}
	for i, f := range l.Fields {
		if f.Stamp != layout.StampNone {
			e.Keys[i] = f.Lo
		}
	}
	score, member, err = l.Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	return score, member
}

// maskStamps masks the stamped fields of every entry in write results ([score, member, data]
// under "entry" and "before").
func maskStamps(t *testing.T, l *layout.Layout, v any) {
	t.Helper()
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			maskStamps(t, l, x)
		}
	case map[string]any:
		for _, k := range []string{"entry", "before"} {
			p, ok := v[k].([]any)
			if !ok {
				continue
			}
			bits, err1 := strconv.ParseUint(p[0].(string), 16, 64)
			member, err2 := hex.DecodeString(p[1].(string))
			if err1 != nil || err2 != nil {
				t.Fatalf("bad pair %v", p)
			}
			score, m := maskPair(t, l, math.Float64frombits(bits), string(member))
			v[k] = []any{scoreHex(score), hex.EncodeToString([]byte(m)), p[2]}
		}
	}
}

// sameBoard compares two boards' sorted sets, side keys and data hashes (stamped fields
// masked).
func sameBoard(t *testing.T, c *redis.Client, l *layout.Layout, a, b, sideA, sideB string) {
	t.Helper()
	ctx := context.Background()
	dump := func(key, side string) string {
		zs, err := c.ZRangeWithScores(ctx, key, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, z := range zs {
			score, member := maskPair(t, l, z.Score, z.Member.(string))
			lines = append(lines, scoreHex(score)+" "+member+"\n")
		}
		slices.Sort(lines)
		var sb strings.Builder
		sb.WriteString(strings.Join(lines, ""))
		typ, _ := c.Type(ctx, side).Result()
		switch typ {
		case "hash":
			m, _ := c.HGetAll(ctx, side).Result()
			for id, member := range m {
				if id != "" {
					_, m[id] = maskPair(t, l, 0, member)
				}
			}
			sb.WriteString(string(mustJSON(m)))
		case "string":
			s, _ := c.Get(ctx, side).Result()
			sb.WriteString(s)
		}
		data, _ := c.HGetAll(ctx, rankgenrt.DataKey(key)).Result()
		sb.WriteString(string(mustJSON(data)))
		return sb.String()
	}
	if x, y := dump(a, sideA), dump(b, sideB); x != y {
		t.Errorf("the boards differ:\nGo's\n%s\nPython's\n%s", x, y)
	}
	if n, _ := c.ZCard(ctx, a).Result(); n == 0 {
		t.Errorf("the boards are empty")
	}
}

// writeOps are the writes both languages run, entries and values as the vectors carry them.
func writeOps(t *testing.T, l *layout.Layout, rng *rand.Rand) []map[string]any {
	t.Helper()
	var ids []string
	batch := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			e := oracle.RandomEntry(l, rng)
			if len(ids) > 0 && rng.IntN(3) == 0 {
				e.ID = ids[rng.IntN(len(ids))] // an id written before: replaced, kept or bettered
			}
			ids = append(ids, e.ID)
			if l.HasData() && rng.IntN(4) > 0 {
				e.Data = oracle.RandomData(l, rng)
			}
			out[i] = entryCase(t, l, e)
		}
		return out
	}
	first := batch(12)
	ops := []map[string]any{
		{"op": "set_many", "entries": first, "token": "tok-1"},
		{"op": "set_many", "entries": first, "token": "tok-1"}, // a resend: the first reply, applied once
		{"op": "remove", "ids": []any{pyID(l, ids[0])}, "token": "tok-1"},
		{"op": "best_many", "entries": batch(10)},
		{"op": "insert_many", "entries": batch(10)},
	}
	for _, op := range catalog.Ops(l) {
		if op.Kind != catalog.Update || op.Batch {
			continue
		}
		var updates []any
		for range 8 {
			id := ids[rng.IntN(len(ids))]
			if rng.IntN(5) == 0 {
				id = oracle.RandomID(l, rng) // most likely an id without an entry
			}
			updates = append(updates, []any{pyID(l, id), updateValue(op, rng)})
		}
		ops = append(ops, map[string]any{"op": "update", "py": pyemit.Snake(op.Methods[0]), "go": op.Methods[0], "field": op.Field.Name, "kind": string(op.Update), "updates": updates})
	}
	return append(ops, map[string]any{"op": "remove", "ids": []any{pyID(l, ids[1]), pyID(l, ids[2]), pyID(l, oracle.RandomID(l, rng))}})
}

// updateValue is a random value of an update: a delta (small, or past the range now and then),
// or a value of the field's range.
func updateValue(op catalog.Op, rng *rand.Rand) any {
	f := op.Field
	if op.Update != layout.OpAdd {
		return pyValue(f, oracle.RandomKey(f, rng))
	}
	span := min(f.Span(), math.MaxInt64/2)
	d := int64(rng.Uint64N(span/2 + 1))
	if rng.IntN(6) == 0 {
		d = int64(span) + 1
	}
	if rng.IntN(2) == 0 {
		d = -d
	}
	return d
}

// goWrites runs ops on the Go board b, with results as writes.py writes them.
func goWrites(t *testing.T, l *layout.Layout, ex exampleboards.Example, b reflect.Value, ops []map[string]any) []any {
	t.Helper()
	var out []any
	for _, op := range ops {
		ctx := context.Background()
		if tok, ok := op["token"].(string); ok {
			ctx = rankgenrt.WithIdempotencyKey(ctx, tok)
		}
		cv := reflect.ValueOf(ctx)
		var res []reflect.Value
		switch op["op"] {
		case "set_many", "best_many", "insert_many":
			entries := op["entries"].([]any)
			batch := reflect.MakeSlice(reflect.SliceOf(ex.Codec.Entry()), len(entries), len(entries))
			for i, c := range entries {
				oracle.ToGenerated(l, entryOfCase(t, l, c.(map[string]any)), batch.Index(i).Addr().Interface())
			}
			method := map[any]string{"set_many": "SetMany", "best_many": "BestMany", "insert_many": "InsertMany"}[op["op"]]
			res = b.MethodByName(method).Call([]reflect.Value{cv, batch})
		case "update":
			m := b.MethodByName(op["go"].(string) + "Many")
			updates := op["updates"].([]any)
			slice := reflect.MakeSlice(m.Type().In(1), len(updates), len(updates))
			for i, u := range updates {
				pair := u.([]any)
				slice.Index(i).FieldByName(l.IDName).Set(goID(l, pair[0]))
				slice.Index(i).FieldByName("Value").Set(goValue(l, ex, op, pair[1]))
			}
			res = m.Call([]reflect.Value{cv, slice})
		case "remove":
			args := []reflect.Value{cv}
			for _, id := range op["ids"].([]any) {
				args = append(args, goID(l, id))
			}
			res = b.MethodByName("Remove").Call(args)
		}
		if err, _ := res[1].Interface().(error); err != nil {
			out = append(out, map[string]string{"error": errorCode(err)})
			continue
		}
		if op["op"] == "remove" {
			out = append(out, res[0].Int())
			continue
		}
		var items []any
		for i := range res[0].Len() {
			w := res[0].Index(i)
			if errv := w.FieldByName("Err"); errv.IsValid() && !errv.IsNil() {
				items = append(items, map[string]string{"error": errorCode(errv.Interface().(error))})
				continue
			}
			items = append(items, writtenOf(t, l, w))
		}
		out = append(out, items)
	}
	return out
}

// writtenOf is a Go Written (or a Result holding one) as writes.py writes one.
func writtenOf(t *testing.T, l *layout.Layout, w reflect.Value) map[string]any {
	t.Helper()
	existed := w.FieldByName("Existed").Bool()
	var before any
	if existed {
		before = pairOf(t, l, w.FieldByName("Before").Interface())
	}
	return map[string]any{"entry": pairOf(t, l, w.Interface()), "before": before, "existed": existed, "changed": w.FieldByName("Changed").Bool()}
}

// entryOfCase is the entry a vector case stands for.
func entryOfCase(t *testing.T, l *layout.Layout, c map[string]any) layout.Entry {
	t.Helper()
	id := goID(l, c["id"])
	e := layout.Entry{Keys: make([]uint64, len(l.Fields))}
	if id.Kind() == reflect.Uint64 {
		e.ID = strconv.FormatUint(id.Uint(), 10)
	} else {
		e.ID = id.String()
	}
	for i, f := range l.Fields {
		e.Keys[i] = keyOf(f, c["values"].([]any)[i])
	}
	if d, ok := c["data"].([]any); ok {
		e.Data = make([]layout.DataValue, len(l.Data))
		for i, f := range l.Data {
			if f.Kind == layout.String {
				b, err := hex.DecodeString(d[i].(string))
				if err != nil {
					t.Fatal(err)
				}
				e.Data[i].Text = string(b)
			} else {
				e.Data[i].Key = keyOf(f, d[i])
			}
		}
	}
	return e
}

// keyOf inverts pyValue.
func keyOf(f *layout.Field, v any) uint64 {
	switch v := v.(type) {
	case int64:
		return layout.IntKey(v)
	case bool:
		if v {
			return 1
		}
		return 0
	case string:
		for i, s := range f.Values {
			if s == v {
				return uint64(i)
			}
		}
		panic("no enum value " + v)
	case uint64:
		return v
	}
	panic("keyOf: " + reflect.TypeOf(v).String())
}

// goValue is an update's value as the Go method takes it: a delta, or the Go value of the
// field's key that the value stands for (as the package's Entry holds it).
func goValue(l *layout.Layout, ex exampleboards.Example, op map[string]any, v any) reflect.Value {
	if op["kind"] == "add" {
		return reflect.ValueOf(v.(int64))
	}
	i := 0
	for l.Fields[i].Name != op["field"] {
		i++
	}
	e := layout.Entry{ID: "1", Keys: make([]uint64, len(l.Fields))}
	for j, f := range l.Fields {
		e.Keys[j] = f.Lo
	}
	e.Keys[i] = keyOf(l.Fields[i], v)
	ptr := reflect.New(ex.Codec.Entry())
	oracle.ToGenerated(l, e, ptr.Interface())
	return ptr.Elem().FieldByName(l.Fields[i].Name)
}

// TestUncertainWrite: a Python write whose reply is lost raises UncertainError with its token,
// and resending it under that token applies it once (uncertain.py, on a server of its own:
// it pauses the server's writes).
func TestUncertainWrite(t *testing.T) {
	needPython(t)
	srv := redistest.Start(t)
	out := runPython(t, "uncertain.py", "../clients/py", srv.Options().Addr, "race:uncertain")
	if strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("uncertain.py: %s", out)
	}
}

package pytest

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// TestReads: on a board of every example that Go wrote, the Python board's reads (top, page,
// around, rank, get, get many, rank many, count) return what the Go board's return, entries bit
// for bit with their ranks and data, and the same errors (an id without an entry, an invalid
// id or offset); on a board another layout wrote, Python refuses, or reads, as Go does. The
// server's library is flushed before Python reads: Python loads the library, under Go's name.
// The examples run one after another: each flushes the server's functions.
func TestReads(t *testing.T) {
	needPython(t)
	all := append(exampleboards.All(), exampleboards.Periodic()...)
	for i, ex := range all {
		t.Run(ex.Name, func(t *testing.T) {
			other := all[(i+1)%len(all)]
			checkReads(t, ex, other, rand.New(rand.NewPCG(3, uint64(i))))
		})
	}
}

// TestReadsAfterASwitch: a Board that has read its board refuses it once another layout
// claims it (a migration's switch), by plain command and by library function alike: it never
// reads the new layout's entries as its own.
func TestReadsAfterASwitch(t *testing.T) {
	needPython(t)
	for _, ex := range exampleboards.All() {
		t.Run(ex.Name, func(t *testing.T) {
			c := redistest.Client(t)
			l := ex.Layout(t)
			dir, name := module(t, l)
			key := redistest.Key(t, ex.Name)
			b := aBoard(t, c, ex, key)
			entries := fill(t, l, ex, b, 5, rand.New(rand.NewPCG(4, 5)))
			id := pyID(l, entries[0].ID)
			ops := []map[string]any{{"op": "top", "n": 3}, {"op": "count"}, {"op": "switch", "fp": "0123456789abcdef"},
				{"op": "top", "n": 3}, {"op": "count"}, {"op": "rank", "id": id}, {"op": "get", "id": id}}
			got, _ := pyReads(t, c, l, dir, name, b.MethodByName("Key").Call(nil)[0].String(), ops)
			for i, r := range got {
				refused := reflect.DeepEqual(r, map[string]any{"error": "LAYOUT_MISMATCH"})
				if i < 2 && refused || i > 2 && !refused {
					t.Errorf("%v: %v; want the read %s", ops[i], r, map[bool]string{true: "refused", false: "to succeed"}[i > 2])
				}
			}
		})
	}
}

// aBoard is a Go board of ex on key: a periodic example's of the season that holds the
// server's clock.
func aBoard(t *testing.T, c *redis.Client, ex exampleboards.Example, key string) reflect.Value {
	t.Helper()
	if ex.SeasonAt != nil {
		return reflect.ValueOf(ex.BoardIn(c, key, exampleboards.LiveSeason(t, c, ex.SeasonAt, time.Minute)))
	}
	return reflect.ValueOf(ex.Board(c, key))
}

// fill writes n random entries (most with data) to the Go board b of layout l and returns them.
func fill(t *testing.T, l *layout.Layout, ex exampleboards.Example, b reflect.Value, n int, rng *rand.Rand) []layout.Entry {
	t.Helper()
	entries := make([]layout.Entry, n)
	batch := reflect.MakeSlice(reflect.SliceOf(ex.Codec.Entry()), n, n)
	for i := range entries {
		e := oracle.RandomEntry(l, rng)
		for j, f := range l.Fields {
			if f.Season { // inside any season: the board refuses an offset past its end
				e.Keys[j] = layout.IntKey(rng.Int64N(3600))
			}
		}
		if i%5 == 1 {
			e.Keys = slices.Clone(entries[i-1].Keys) // a tie: the ids decide
		}
		if l.HasData() && rng.IntN(4) > 0 {
			e.Data = oracle.RandomData(l, rng)
		}
		entries[i] = e
		oracle.ToGenerated(l, e, batch.Index(i).Addr().Interface())
	}
	out := b.MethodByName("SetMany").Call([]reflect.Value{reflect.ValueOf(context.Background()), batch})
	if err, _ := out[1].Interface().(error); err != nil {
		t.Fatalf("SetMany: %v", err)
	}
	return entries
}

func checkReads(t *testing.T, ex, other exampleboards.Example, rng *rand.Rand) {
	c := redistest.Client(t)
	l := ex.Layout(t)
	dir, name := module(t, l)
	lib, err := luaemit.Render(l)
	if err != nil {
		t.Fatal(err)
	}

	key := redistest.Key(t, ex.Name)
	b := aBoard(t, c, ex, key)
	entries := fill(t, l, ex, b, 40, rng)
	ops := readOps(l, entries, rng)
	want := goReads(t, l, b, ops)

	// A board the other example's layout wrote, read with this layout's code.
	otherKey := redistest.Key(t, ex.Name+"-other")
	fill(t, other.Layout(t), other, aBoard(t, c, other, otherKey), 5, rng)
	wantOther := goReads(t, l, aBoard(t, c, ex, otherKey), ops)

	if err := c.FunctionFlush(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	got, gotLib := pyReads(t, c, l, dir, name, b.MethodByName("Key").Call(nil)[0].String(), ops)
	if gotLib != lib.Name {
		t.Errorf("the Python module's library is %s, Go's %s", gotLib, lib.Name)
	}
	libs, err := c.FunctionList(context.Background(), redis.FunctionListQuery{LibraryNamePattern: lib.Name}).Result()
	if err != nil || len(libs) != 1 {
		t.Errorf("after Python's reads of a server without the library, FUNCTION LIST %s gives %v, %v", lib.Name, libs, err)
	}
	compareReads(t, "", ops, want, got)
	gotOther, _ := pyReads(t, c, l, dir, name, aBoard(t, c, ex, otherKey).MethodByName("Key").Call(nil)[0].String(), ops)
	compareReads(t, other.Name+"'s board: ", ops, wantOther, gotOther)
	if !strings.Contains(string(mustJSON(wantOther)), "LAYOUT_MISMATCH") && !strings.Contains(string(mustJSON(wantOther)), "BAD_") {
		t.Errorf("Go read %s's board with %s's code without refusing anything: %s", other.Name, ex.Name, mustJSON(wantOther))
	}
}

func compareReads(t *testing.T, what string, ops []map[string]any, want, got []any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s%d results from Python, %d from Go", what, len(got), len(want))
	}
	for i := range ops {
		w, g := mustJSON(want[i]), mustJSON(got[i])
		if string(w) != string(g) {
			t.Errorf("%s%v:\n  Python %s\n  Go     %s", what, ops[i], g, w)
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// readOps are the reads both languages run: pages, and per id (some with entries, one
// without, an invalid one) around, rank, get, then get many and rank many of them all.
func readOps(l *layout.Layout, entries []layout.Entry, rng *rand.Rand) []map[string]any {
	ops := []map[string]any{
		{"op": "count"}, {"op": "top", "n": 10}, {"op": "top", "n": 0}, {"op": "top", "n": 1000},
		{"op": "page", "offset": 3, "limit": 7}, {"op": "page", "offset": 1000, "limit": 5},
		{"op": "page", "offset": -1, "limit": 5},
	}
	var ids []any
	for range 4 {
		ids = append(ids, pyID(l, entries[rng.IntN(len(entries))].ID))
	}
	missing := oracle.RandomID(l, rng)
	for slices.ContainsFunc(entries, func(e layout.Entry) bool { return e.ID == missing }) {
		missing = oracle.RandomID(l, rng)
	}
	ids = append(ids, pyID(l, missing))
	for _, id := range ids {
		ops = append(ops,
			map[string]any{"op": "around", "id": id, "before": 2, "after": 3, "fill": false},
			map[string]any{"op": "around", "id": id, "before": 6, "after": 0, "fill": true},
			map[string]any{"op": "rank", "id": id},
			map[string]any{"op": "get", "id": id})
	}
	ops = append(ops, map[string]any{"op": "get_many", "ids": ids}, map[string]any{"op": "rank_many", "ids": ids},
		map[string]any{"op": "ranked_many", "ids": append(ids, ids[0])}) // an id twice comes once
	if l.IDType == layout.IDString {
		empty := hex.EncodeToString(nil)
		ops = append(ops, map[string]any{"op": "get", "id": empty}, map[string]any{"op": "around", "id": empty, "before": 1, "after": 1, "fill": false})
	}
	return ops
}

// goID is an op's id as the Go board takes it.
func goID(l *layout.Layout, id any) reflect.Value {
	if l.IDType == layout.IDUint64 {
		return reflect.ValueOf(id.(uint64))
	}
	b, err := hex.DecodeString(id.(string))
	if err != nil {
		panic(err)
	}
	return reflect.ValueOf(string(b))
}

// goReads runs ops on the Go board b, with results as reads.py writes them.
func goReads(t *testing.T, l *layout.Layout, b reflect.Value, ops []map[string]any) []any {
	t.Helper()
	ctx := reflect.ValueOf(context.Background())
	i64 := func(v any) reflect.Value { return reflect.ValueOf(int64(v.(int))) }
	var out []any
	for _, op := range ops {
		var res []reflect.Value
		switch op["op"] {
		case "count":
			res = b.MethodByName("Count").Call([]reflect.Value{ctx})
		case "top":
			res = b.MethodByName("Top").Call([]reflect.Value{ctx, i64(op["n"])})
		case "page":
			res = b.MethodByName("Page").Call([]reflect.Value{ctx, i64(op["offset"]), i64(op["limit"])})
		case "around":
			method := "Around"
			if op["fill"].(bool) {
				method = "AroundFilled"
			}
			res = b.MethodByName(method).Call([]reflect.Value{ctx, goID(l, op["id"]), i64(op["before"]), i64(op["after"])})
		case "rank":
			res = b.MethodByName("Rank").Call([]reflect.Value{ctx, goID(l, op["id"])})
		case "get":
			res = b.MethodByName("Get").Call([]reflect.Value{ctx, goID(l, op["id"])})
		case "get_many", "rank_many", "ranked_many":
			args := []reflect.Value{ctx}
			for _, id := range op["ids"].([]any) {
				args = append(args, goID(l, id))
			}
			res = b.MethodByName(map[any]string{"get_many": "GetMany", "rank_many": "RankMany", "ranked_many": "RankedMany"}[op["op"]]).Call(args)
		default:
			t.Fatalf("unknown op %v", op)
		}
		if err, _ := res[1].Interface().(error); err != nil {
			out = append(out, map[string]string{"error": errorCode(err)})
			continue
		}
		out = append(out, goResult(t, l, op["op"].(string), res[0]))
	}
	return out
}

// goResult writes one Go read's result as reads.py does.
func goResult(t *testing.T, l *layout.Layout, op string, v reflect.Value) any {
	t.Helper()
	switch op {
	case "count", "rank":
		return v.Int()
	case "get":
		return pairOf(t, l, v.Interface())
	case "rank_many":
		return v.Interface()
	case "get_many":
		out := []any{}
		for i := range v.Len() {
			r := v.Index(i)
			if err, _ := r.FieldByName("Err").Interface().(error); err != nil {
				if errorCode(err) != "NOT_FOUND" {
					t.Fatalf("GetMany: %v", err)
				}
				out = append(out, nil)
				continue
			}
			out = append(out, pairOf(t, l, r.Interface()))
		}
		return out
	}
	out := []any{}
	for i := range v.Len() {
		r := v.Index(i)
		out = append(out, append([]any{r.FieldByName("Rank").Int()}, pairOf(t, l, r.Interface())...))
	}
	return out
}

// pairOf is a Go entry (or a result embedding one) as reads.py writes an entry: its score's
// bits and member as Encode gives them, and its stored data.
func pairOf(t *testing.T, l *layout.Layout, v any) []any {
	t.Helper()
	e := oracle.FromGenerated(l, v)
	score, member, err := l.Encode(e)
	if err != nil {
		t.Fatalf("encode %v: %v", e, err)
	}
	data := ""
	if l.HasData() {
		vals := e.Data
		if vals == nil {
			vals = l.ZeroData()
		}
		stored, err := l.EncodeData(vals)
		if err != nil {
			t.Fatalf("encode data %v: %v", vals, err)
		}
		data = hex.EncodeToString([]byte(stored))
	}
	return []any{scoreHex(score), hex.EncodeToString([]byte(member)), data}
}

// pyReads runs ops with the Python module on the board under key, and returns its results and
// the name of the library it calls.
func pyReads(t *testing.T, c *redis.Client, l *layout.Layout, dir, name, key string, ops []map[string]any) ([]any, string) {
	t.Helper()
	opts := c.Options()
	req := map[string]any{"addr": opts.Addr, "db": opts.DB, "password": opts.Password, "key": key,
		"id_uint": l.IDType == layout.IDUint64, "ops": ops}
	out := runPython(t, "reads.py", dir, name, writeJSON(t, req))
	var res struct {
		Results []any  `json:"results"`
		Library string `json:"library"`
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	dec.UseNumber()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("reads.py: %v: %s", err, out)
	}
	return normalize(res.Results).([]any), res.Library
}

// normalize turns the JSON numbers of Python's results into the Go types goReads gives, so that
// both marshal alike.
func normalize(v any) any {
	switch v := v.(type) {
	case []any:
		for i := range v {
			v[i] = normalize(v[i])
		}
		return v
	case map[string]any:
		for k := range v {
			v[k] = normalize(v[k])
		}
		return v
	case json.Number:
		n, err := v.Int64()
		if err != nil {
			panic(fmt.Sprint("not an int64: ", v))
		}
		return n
	}
	return v
}

package boardtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/v1"
	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/v3"
	"github.com/rankgen/rankgen/generator"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// systemPython is Debian's interpreter, with python3-redis (the README's test command installs
// both).
const systemPython = "/usr/bin/python3"

// TestPythonRoutesToPrevious: v3's Python Board, on a board v1's code filled, reads and writes
// it in v1's layout as v3's Go Board does (every call's reply or refusal compared), and in v3's
// own once the migration has switched it; the two boards end equal, byte for byte.
func TestPythonRoutesToPrevious(t *testing.T) {
	if out, err := exec.Command(systemPython, "-c", "import redis").CombinedOutput(); err != nil {
		t.Fatalf("%s cannot import redis (%v: %s): run scripts/test.sh, which installs python3-redis (apt-get)", systemPython, err, out)
	}
	dir := pythonClient(t, v3Layout(t))
	c := redistest.Client(t)
	goKey, pyKey := redistest.Key(t, "go"), redistest.Key(t, "py")
	fillV1(t, c, goKey, pyKey)
	before := []clientCall{
		{"get", "p1"}, {"top", 10}, {"rank", "p2"}, {"count"}, {"get_many", []string{"p3", "nobody"}}, {"around", "p2", 1, 1},
		{"set", entryCall("p4", 250, "kart", "n4", 4)},
		{"set", entryCall("p5", 1<<31, "kart", "big", 1)}, // past v1's 30 bits
		{"set", entryCall("p5", 50, "rally", "rally", 1)}, // a class v1 lacks
		{"set", entryCall("p5", 1<<41, "rally", "", 1)},   // past v3's 40 bits too
		{"best", entryCall("p1", 350, "kart", "n1", 9)},
		{"insert", entryCall("p2", 999, "kart", "", 0)},
		{"add_points", "p3", 5}, {"add_points", "p3", 1 << 30}, {"add_points", "p3", -1000},
		{"add_points_many", [][]any{{"p3", 1}, {"p9", 1 << 30}, {"p4", -251}}},
		{"set_points", "p6", 77},
		{"remove", []string{"p2", "nobody"}},
		{"get", "nobody"}, {"top", 10},
	}
	compareCalls(t, c, dir, goKey, pyKey, before)

	plan := previousPlan(t, "internal/compat/v3/v3.yaml")
	for _, key := range []string{goKey, pyKey} {
		if _, err := migrate.Run(ctx, c, plan, migrate.Options{Key: key}); err != nil {
			t.Fatal(err)
		}
	}
	after := []clientCall{
		{"set", entryCall("p5", 1<<31, "rally", "big", 1)}, {"add_points", "p3", 1 << 30},
		{"get", "p5"}, {"top", 10}, {"rank", "p3"}, {"count"},
	}
	compareCalls(t, c, dir, goKey, pyKey, after)
	if g, p := dumpBoard(t, c, goKey), dumpBoard(t, c, pyKey); g != p {
		t.Fatalf("the boards differ:\nGo     %s\nPython %s", g, p)
	}
}

// clientCall is one call of the Board: its method's name in Python (the TypeScript driver
// reads the same names) and its arguments.
type clientCall []any

func entryCall(id string, points uint64, class, nick string, level int) []any {
	return []any{id, points, class, nick, level}
}

// v3Layout is v3's layout, with v1's as its previous one.
func v3Layout(t *testing.T) *layout.Layout {
	return previousLayout(t, "internal/compat/v3/v3.yaml")
}

// fillV1 writes the same three entries on each key with v1's code.
func fillV1(t *testing.T, c redis.UniversalClient, keys ...string) {
	t.Helper()
	for _, key := range keys {
		for i, points := range []uint32{300, 200, 100} {
			e := v1.Entry{PlayerID: fmt.Sprint("p", i+1), Points: points, Data: v1.Data{Nick: fmt.Sprint("n", i+1), Level: uint8(i)}}
			if _, err := v1.NewBoard(c, key).Set(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// pythonClient writes the Python modules of l (its own and its previous layout's, which it
// imports) into a new directory.
func pythonClient(t *testing.T, l *layout.Layout) string {
	t.Helper()
	own, err := generator.Python(l)
	if err != nil {
		t.Fatal(err)
	}
	prev, ok, err := generator.PythonPrevious(l)
	if err != nil || !ok {
		t.Fatalf("%s's previous Python module: %v, %v", l.File, ok, err)
	}
	dir := t.TempDir()
	for _, f := range []generator.File{own, prev} {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// compareCalls makes calls with v3's Go Board on goKey and its Python Board on pyKey, and
// compares their results, call by call.
func compareCalls(t *testing.T, c *redis.Client, dir, goKey, pyKey string, calls []clientCall) {
	t.Helper()
	req := map[string]any{"addr": c.Options().Addr, "key": pyKey, "calls": calls}
	out := runClient(t, req, systemPython, filepath.Join("testdata", "previous.py"), dir)
	compareResults(t, v3.NewBoard(c, goKey), calls, out)
}

// compareResults compares out, a client's results of calls (a JSON array), with those of v3's
// Go Board b, call by call.
func compareResults(t *testing.T, b *v3.Board, calls []clientCall, out []byte) {
	t.Helper()
	var got []json.RawMessage
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(calls) {
		t.Fatalf("the client printed %s (%v)", out, err)
	}
	for i, cl := range calls {
		want, err := json.Marshal(goCall(t, b, cl))
		if err != nil {
			t.Fatal(err)
		}
		var g any
		if err := json.Unmarshal(got[i], &g); err != nil {
			t.Fatal(err)
		}
		gotJSON, _ := json.Marshal(g)
		if !bytes.Equal(want, gotJSON) {
			t.Errorf("%v: Go %s, client %s", cl, want, gotJSON)
		}
	}
}

// goCall makes cl with v3's Go Board, its result as previous.py prints Python's.
func goCall(t *testing.T, b *v3.Board, cl clientCall) any {
	t.Helper()
	plain := func(e v3.Entry) []any {
		return []any{e.PlayerID, e.Points, e.Class.String(), e.Data.Nick, e.Data.Level}
	}
	written := func(w v3.Written) []any {
		var before any
		if w.Existed {
			before = plain(w.Before)
		}
		return []any{plain(w.Entry), before, w.Existed, w.Changed}
	}
	ranked := func(rs []v3.Ranked) [][]any {
		out := [][]any{}
		for _, r := range rs {
			out = append(out, []any{r.Rank, plain(r.Entry)})
		}
		return out
	}
	entry := func(x any) v3.Entry {
		a := x.([]any)
		var class v3.Class
		if err := class.UnmarshalText([]byte(a[2].(string))); err != nil {
			t.Fatal(err)
		}
		return v3.Entry{PlayerID: a[0].(string), Points: a[1].(uint64), Class: class, Data: v3.Data{Nick: a[3].(string), Level: uint8(a[4].(int))}}
	}
	var res any
	var err error
	switch cl[0] {
	case "set", "best", "insert":
		f := map[any]func(v3.Entry) (v3.Written, error){
			"set":    func(e v3.Entry) (v3.Written, error) { return b.Set(ctx, e) },
			"best":   func(e v3.Entry) (v3.Written, error) { return b.Best(ctx, e) },
			"insert": func(e v3.Entry) (v3.Written, error) { return b.Insert(ctx, e) },
		}[cl[0]]
		var w v3.Written
		if w, err = f(entry(cl[1])); err == nil {
			res = written(w)
		}
	case "add_points":
		var w v3.Written
		if w, err = b.AddPoints(ctx, cl[1].(string), int64(cl[2].(int))); err == nil {
			res = written(w)
		}
	case "set_points":
		var w v3.Written
		if w, err = b.SetPoints(ctx, cl[1].(string), uint64(cl[2].(int))); err == nil {
			res = written(w)
		}
	case "add_points_many":
		var us []v3.Update[int64]
		for _, u := range cl[1].([][]any) {
			us = append(us, v3.Update[int64]{PlayerID: u[0].(string), Value: int64(u[1].(int))})
		}
		var rs []v3.Result
		if rs, err = b.AddPointsMany(ctx, us); err == nil {
			out := []any{}
			for _, r := range rs {
				if r.Err != nil {
					out = append(out, pythonCode(r.Err))
					continue
				}
				out = append(out, written(r.Written))
			}
			res = out
		}
	case "remove":
		res, err = b.Remove(ctx, cl[1].([]string)...)
	case "get":
		var e v3.Entry
		if e, err = b.Get(ctx, cl[1].(string)); err == nil {
			res = plain(e)
		}
	case "get_many":
		out := []any{}
		for _, id := range cl[1].([]string) {
			e, err := b.Get(ctx, id)
			switch {
			case errors.Is(err, rankgenrt.ErrNotFound):
				out = append(out, nil)
			case err != nil:
				t.Fatal(err)
			default:
				out = append(out, plain(e))
			}
		}
		res = out
	case "rank":
		res, err = b.Rank(ctx, cl[1].(string))
	case "count":
		res, err = b.Count(ctx)
	case "top":
		var rs []v3.Ranked
		if rs, err = b.Top(ctx, int64(cl[1].(int))); err == nil {
			res = ranked(rs)
		}
	case "around":
		var rs []v3.Ranked
		if rs, err = b.Around(ctx, cl[1].(string), int64(cl[2].(int)), int64(cl[3].(int))); err == nil {
			res = ranked(rs)
		}
	default:
		t.Fatalf("unknown call %v", cl)
	}
	if err != nil {
		return map[string]string{"error": pythonCode(err)}
	}
	return res
}

// pythonCode is the code of the Python error class err is raised as.
func pythonCode(err error) string {
	for _, c := range []struct {
		err  error
		code string
	}{
		{rankgenrt.ErrNotInPreviousLayout, "NOT_IN_PREVIOUS_LAYOUT"}, {rankgenrt.ErrOverflow, "OVERFLOW"},
		{rankgenrt.ErrOutOfRange, "OUT_OF_RANGE"}, {rankgenrt.ErrNotFound, "NOT_FOUND"},
		{rankgenrt.ErrLayoutMismatch, "LAYOUT_MISMATCH"}, {rankgenrt.ErrTokenReused, "TOKEN_REUSED"},
	} {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return err.Error()
}

// dumpBoard is what a board's keys hold: its sorted set, side key and data hash, with the
// key's own name left out.
func dumpBoard(t *testing.T, c *redis.Client, key string) string {
	t.Helper()
	zs, err := c.ZRangeWithScores(ctx, key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	idx, err := c.HGetAll(ctx, rankgenrt.IndexKey(key)).Result()
	if err != nil {
		t.Fatal(err)
	}
	data, err := c.HGetAll(ctx, rankgenrt.DataKey(key)).Result()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(zs, idx, data)
}

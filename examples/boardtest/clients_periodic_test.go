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
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/p1"
	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/p2"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestClientsReadPeriodicInPrevious: p2's Python and TypeScript Boards (a periodic layout, whose
// clients read and do not write) read a season's board p1's code filled in p1's layout as p2's
// Go Board does, and the same board in p2's once the migration has switched it.
func TestClientsReadPeriodicInPrevious(t *testing.T) {
	if out, err := exec.Command(systemPython, "-c", "import redis").CombinedOutput(); err != nil {
		t.Fatalf("%s cannot import redis (%v: %s): run scripts/test.sh, which installs python3-redis (apt-get)", systemPython, err, out)
	}
	l := previousLayout(t, "internal/compat/p2/p2.yaml")
	pyDir, tsScript := pythonClient(t, l), typeScriptClient(t, l, "previous_reads.ts")
	c := redistest.Client(t)
	base := redistest.Key(t, "{daily}")
	season := exampleboards.LiveSeason(t, c, p1.NewSeasons(c, base).At, 30*time.Second)
	key := rankgenrt.SeasonKey(base, season)
	for i := range 6 {
		if _, err := p1.NewBoard(c, key, season).Set(ctx, p1.Entry{PlayerID: fmt.Sprint("p", i), Points: uint32(10 * (i % 4))}); err != nil {
			t.Fatal(err)
		}
	}
	calls := []clientCall{{"get", "p1"}, {"top", 10}, {"rank", "p2"}, {"around", "p3", 1, 2}, {"get_many", []string{"p5", "nobody"}}, {"get", "nobody"}}
	check := func(when string) {
		t.Helper()
		b := p2.NewBoard(c, key, season)
		want, err := json.Marshal(p2Reads(t, b, calls))
		if err != nil {
			t.Fatal(err)
		}
		req := map[string]any{"addr": c.Options().Addr, "key": key, "calls": calls}
		py := runClient(t, req, systemPython, filepath.Join("testdata", "previous_reads.py"), pyDir)
		host, port, err := splitAddr(c.Options().Addr)
		if err != nil {
			t.Fatal(err)
		}
		req["host"], req["port"] = host, port
		ts := runClient(t, req, "node", tsScript)
		for name, got := range map[string][]byte{"Python": py, "TypeScript": ts} {
			if !bytes.Equal(normalJSON(t, got), want) {
				t.Errorf("%s: %s reads\n%s\nGo reads\n%s", when, name, got, want)
			}
		}
	}
	check("in p1's layout")
	now, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.RunBoard(ctx, c, previousPlan(t, "internal/compat/p2/p2.yaml"), migrate.Options{Key: base, Now: now}); err != nil {
		t.Fatal(err)
	}
	check("after the switch")
}

// runClient runs a client's driver (command, then args, then the request's file) and returns
// what it prints.
func runClient(t *testing.T, req map[string]any, command string, args ...string) []byte {
	t.Helper()
	data, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "req.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(command, append(args, file)...)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", command, args, err, stderr.String())
	}
	return stdout.Bytes()
}

// normalJSON is JSON text as encoding/json writes it.
func normalJSON(t *testing.T, text []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(text, &v); err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// p2Reads makes calls with p2's Go Board, their results as the clients' drivers print them.
func p2Reads(t *testing.T, b *p2.Board, calls []clientCall) []any {
	t.Helper()
	plain := func(e p2.Entry) []any {
		return []any{e.PlayerID, e.Points, e.Tier.String(), int64(e.ReachedAt / time.Second)}
	}
	ranked := func(rs []p2.Ranked) [][]any {
		out := [][]any{}
		for _, r := range rs {
			out = append(out, []any{r.Rank, plain(r.Entry)})
		}
		return out
	}
	var out []any
	for _, cl := range calls {
		var res any
		var err error
		switch cl[0] {
		case "get":
			var e p2.Entry
			if e, err = b.Get(ctx, cl[1].(string)); err == nil {
				res = plain(e)
			}
		case "get_many":
			many := []any{}
			for _, id := range cl[1].([]string) {
				e, err := b.Get(ctx, id)
				switch {
				case errors.Is(err, rankgenrt.ErrNotFound):
					many = append(many, nil)
				case err != nil:
					t.Fatal(err)
				default:
					many = append(many, plain(e))
				}
			}
			res = many
		case "rank":
			res, err = b.Rank(ctx, cl[1].(string))
		case "top":
			var rs []p2.Ranked
			if rs, err = b.Top(ctx, int64(cl[1].(int))); err == nil {
				res = ranked(rs)
			}
		case "around":
			var rs []p2.Ranked
			if rs, err = b.Around(ctx, cl[1].(string), int64(cl[2].(int)), int64(cl[3].(int))); err == nil {
				res = ranked(rs)
			}
		default:
			t.Fatalf("unknown call %v", cl)
		}
		if err != nil {
			res = map[string]string{"error": pythonCode(err)}
		}
		out = append(out, res)
	}
	return out
}

package boardtest

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// BenchmarkPairedFunctions measures what calling a board's Lua as one Redis Functions library
// costs against the scripts it replaced, paired as in BenchmarkPaired: the baseline is EVALSHA
// of a script holding the library's head and one function's body (what each operation's script
// held before), the measured side FCALL (FCALL_RO for the read) of that function. A single
// update (Add<Field> of one entry) and a read (RankMany of 10 ids); ratio-wall and ratio-cpu ≥ 1
// mean FCALL is as fast.
//
//	go test -run '^$' -bench PairedFunctions -count 3 ./examples/boardtest
func BenchmarkPairedFunctions(b *testing.B) {
	forExamples(b, func(b *testing.B, l *layout.Layout, c *redis.Client, board func(string) *benchBoard) {
		lib, err := luaemit.Render(l)
		if err != nil {
			b.Fatal(err)
		}
		fns := rankgenrt.NewLibrary(lib.Source)
		if err := fns.Load(ctx, c); err != nil {
			b.Fatal(err)
		}
		update := ""
		for _, u := range catalog.FieldUpdates(l) {
			if u.Field.Name == updateTarget[l.Package] && u.Update == layout.OpAdd {
				update = u.Name()
			}
		}
		for _, side := range []struct {
			name, op string
			args     func(bb *benchBoard, i int) []any
		}{
			{"op=Update", update, func(bb *benchBoard, i int) []any {
				// No expiry, dedup off, the client's clock (for a field it stamps).
				return []any{"", 0, "", "0", strconv.FormatInt(time.Now().UnixMicro(), 10), bb.ids[i%benchEntries], delta(i)}
			}},
			{"op=RankMany10", "rank_many", func(bb *benchBoard, i int) []any {
				ids := make([]any, 10)
				for j := range ids {
					ids[j] = bb.ids[(i*10+j)%benchEntries]
				}
				return ids
			}},
		} {
			script := redis.NewScript(scriptOf(b, lib, side.op))
			fn := fns.Function(side.op)
			ro := side.op == "rank_many"
			eb, fb := board("evalsha-"+side.op), board("fcall-"+side.op)
			ek, fk := boardKeysOf(b, l.Package, c, eb.key), boardKeysOf(b, l.Package, c, fb.key)
			runPaired(b, side.name+"/base=evalsha", c, func(c *redis.Client, i int) error {
				if ro {
					return script.RunRO(ctx, c, ek, side.args(eb, i)...).Err()
				}
				return script.Run(ctx, c, ek, side.args(eb, i)...).Err()
			}, func(c *redis.Client, i int) error {
				if ro {
					_, err := rankgenrt.CallRO(ctx, c, fn, fk, side.args(fb, i)...)
					return err
				}
				_, err := rankgenrt.Call(ctx, c, fn, fk, side.args(fb, i)...)
				return err
			})
		}
	})
}

// scriptOf is the script an operation had before the library: the library's heads, the
// runtime's and the layout's (without its first line, which names the library), and the
// function's body run under the layout, flagged as the function is.
func scriptOf(b *testing.B, lib *luaemit.Library, op string) string {
	head, _, _ := strings.Cut(lib.Source, "\nregister('")
	_, head, _ = strings.Cut(head, "\n")
	for _, fn := range lib.Functions {
		if fn.Op == op {
			flags := "#!lua\n"
			if fn.ReadOnly {
				flags = "#!lua flags=no-writes\n"
			}
			return flags + head + "\nbind(registering)\n" + fn.Body
		}
	}
	b.Fatalf("no function %s", op)
	return ""
}

// boardKeysOf is the keys of the example's board at key.
func boardKeysOf(b *testing.B, name string, c *redis.Client, key string) []string {
	switch name {
	case "racing":
		return racing.NewBoard(c, key).Keys()
	case "arena":
		return arena.NewBoard(c, key).Keys()
	case "season":
		return season.NewBoard(c, key).Keys()
	}
	b.Fatalf("no board %s", name)
	return nil
}

package boardtest

import (
	"strconv"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// BenchmarkPairedSeasonGuard measures what the season guard of the set and best scripts costs,
// paired as in BenchmarkPaired (ratio-cpu is the baseline's CPU over the guarded script's):
// weekly's guarded scripts against the same layout's scripts rendered without the guard (its
// season-anchored field treated as a plain one), on entries of the current week, one entry a
// call and 100.
//
//	go test -run '^$' -bench PairedSeasonGuard -count 6 -benchtime 300x ./examples/boardtest
func BenchmarkPairedSeasonGuard(b *testing.B) {
	c := benchClient(b)
	guarded, plain := parse(b, "weekly.yaml"), parse(b, "weekly.yaml")
	for _, f := range plain.Fields {
		f.Season = false
	}
	from := time.Now().Truncate(time.Hour)
	for _, op := range []string{"set", "best"} {
		for _, batch := range []int{1, 100} {
			base := seasonGuardOp(b, plain, op, batch, from)
			gen := seasonGuardOp(b, guarded, op, batch, from)
			runPaired(b, "op="+op+"/batch="+strconv.Itoa(batch)+"/base=unguarded", c, base, gen)
		}
	}
}

// seasonGuardOp runs l's script of op (set or best) with batch entries a call on a board of its
// own, whose season (when the script takes one) starts at from and lasts a week.
func seasonGuardOp(b *testing.B, l *layout.Layout, name string, batch int, from time.Time) op {
	lib, err := luaemit.Render(l)
	if err != nil {
		b.Fatal(err)
	}
	var r rawScript
	for _, o := range catalog.Scripts(l) {
		if o.Name == name {
			r = rawScript{l: l, op: o, script: scriptNamed(b, lib, name)}
		}
	}
	key := "{guard}:" + name + strconv.Itoa(batch) + strconv.FormatBool(catalog.EntriesTakeSeason(l))
	head := bounds(from, from.Add(7*24*time.Hour))
	return func(c *redis.Client, i int) error {
		groups := make([][]any, batch)
		for j := range groups {
			n := i*batch + j
			keys := []uint64{uint64(n % 977), uint64(n % 600000), uint64(n % 2)} // Points, ReachedAt (s), Paid
			for k, f := range l.Fields {
				keys[k] += f.Lo // keys count from each field's Lo
			}
			score, member, err := l.Encode(layout.Entry{ID: "p" + strconv.Itoa(n%benchEntries), Keys: keys})
			if err != nil {
				return err
			}
			groups[j] = []any{rankgenrt.FormatScore(score), member}
		}
		return r.run(ctx, c, key, r.args(b, head, groups...)...).Err()
	}
}

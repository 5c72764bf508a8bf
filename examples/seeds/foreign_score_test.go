package seeds_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/examples/generated/seed003scaling"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// A board that holds a score this layout cannot have written (another writer's, or a seed's
// rounded one) is refused by the update scripts with ErrBadScore, and the board stays byte for
// byte as it was. Seed 003's At field takes 13 digits but only 2^31 of them are in its range,
// so the script checks the digit it reads: the one place the Lua keeps that guard.
func TestUpdateRefusesForeignScore(t *testing.T) {
	c := redistest.Client(t)
	ctx := context.Background()
	for name, score := range map[string]float64{
		"At digit beyond its range": 100*1e13 + 5e12,
		"not a whole number":        1000000447483647.5,
		"beyond the layout's radix": 9000000000000000,
		"negative":                  -1,
	} {
		t.Run(name, func(t *testing.T) {
			key := redistest.Key(t, "{foreign}")
			b := seed003scaling.NewBoard(c, key)
			if _, err := b.Set(ctx, seed003scaling.Entry{Member: "ok", Raw: 7, At: time.Unix(1700000000, 0)}); err != nil {
				t.Fatal(err)
			}
			if err := c.ZAdd(ctx, key, redis.Z{Score: score, Member: "m"}).Err(); err != nil {
				t.Fatal(err)
			}
			before := dump(t, c, b.Keys())
			if _, err := b.AddRaw(ctx, "m", 1); !errors.Is(err, rankgenrt.ErrBadScore) {
				t.Errorf("AddRaw on score %v: %v, want ErrBadScore", score, err)
			}
			res, err := b.AddRawMany(ctx, []seed003scaling.Update[int64]{{Member: "ok", Value: 1}, {Member: "m", Value: 1}})
			if err == nil && (len(res) != 2 || !errors.Is(res[1].Err, rankgenrt.ErrBadScore)) {
				t.Errorf("AddRawMany on score %v: %+v, want ErrBadScore for m", score, res)
			} else if err != nil && !errors.Is(err, rankgenrt.ErrBadScore) {
				t.Errorf("AddRawMany on score %v: %v, want ErrBadScore", score, err)
			}
			if _, err := b.Get(ctx, "m"); !errors.Is(err, rankgenrt.ErrBadScore) {
				t.Errorf("Get on score %v: %v, want ErrBadScore", score, err)
			}
			if res == nil || err != nil { // a refused batch leaves the whole board as it was
				if after := dump(t, c, b.Keys()); after != before {
					t.Errorf("board changed after a refused update:\nbefore %q\nafter  %q", before, after)
				}
			}
			if s := c.ZScore(ctx, key, "m").Val(); s != score {
				t.Errorf("foreign score changed: %v, want %v", s, score)
			}
		})
	}
}

// dump is the serialized value of every key of a board, to compare states byte for byte.
func dump(t *testing.T, c *redis.Client, keys []string) string {
	t.Helper()
	var out string
	for _, k := range keys {
		v, err := c.Dump(context.Background(), k).Result()
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		out += k + "=" + v + ";"
	}
	return out
}

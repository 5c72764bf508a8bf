package seeds_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// A member this layout cannot have written (here: another writer's prefix text), reached through
// the index, is refused by the update scripts with ErrBadMember before any write, even when the
// bad part is a field the update does not touch (AddPoints touches Points and ReachedAt, not Wins).
func TestUpdateRefusesForeignMember(t *testing.T) {
	c := redistest.Client(t)
	ctx := context.Background()
	for name, member := range map[string]string{
		"upper-case hex": "00FF|0000b2b5a4c|u",
		"not hex":        "zzzz|0000b2b5a4c|u",
		"no separator":   "00ff:0000b2b5a4c|u",
		"time beyond":    "00ff|fffffffffff|u",
	} {
		t.Run(name, func(t *testing.T) {
			key := redistest.Key(t, "{foreign}")
			b := season.NewBoard(c, key)
			if err := b.Set(ctx, season.Entry{UserID: "ok", Points: 3, ReachedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
				t.Fatal(err)
			}
			idx := b.Keys()[1]
			if err := c.ZAdd(ctx, key, redis.Z{Score: 40, Member: member}).Err(); err != nil {
				t.Fatal(err)
			}
			if err := c.HSet(ctx, idx, "u", member).Err(); err != nil {
				t.Fatal(err)
			}
			before := dump(t, c, b.Keys())
			if _, err := b.AddPoints(ctx, "u", 1); !errors.Is(err, rankgenrt.ErrBadMember) {
				t.Errorf("AddPoints on member %q: %v, want ErrBadMember", member, err)
			}
			res, err := b.AddPointsMany(ctx, []season.Update[int64]{{UserID: "ok", Value: 1}, {UserID: "u", Value: 1}})
			if err == nil && (len(res) != 2 || !errors.Is(res[1].Err, rankgenrt.ErrBadMember)) {
				t.Errorf("AddPointsMany on member %q: %+v, want ErrBadMember for u", member, res)
			} else if err != nil && !errors.Is(err, rankgenrt.ErrBadMember) {
				t.Errorf("AddPointsMany on member %q: %v, want ErrBadMember", member, err)
			}
			if err != nil {
				if after := dump(t, c, b.Keys()); after != before {
					t.Errorf("board changed after a refused update:\nbefore %q\nafter  %q", before, after)
				}
			}
			if s, err := c.ZScore(ctx, key, member).Result(); err != nil || s != 40 {
				t.Errorf("foreign entry changed: %v, %v; want score 40 under the same member", s, err)
			}
		})
	}
}

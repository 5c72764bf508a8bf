package seeds_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
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
			if _, err := b.Set(ctx, season.Entry{UserID: "ok", Points: 3, ReachedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
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

// The update scripts' member check agrees with the generated Decode on every member: on 3,000
// members, valid ones and ones with one byte of the prefix replaced (upper case, other digits,
// punctuation, the separator elsewhere), an update refuses the member with ErrBadMember exactly
// when Decode does. Each update adds 0, so an accepted member is left as it was.
func TestMemberCheckAgreesWithDecode(t *testing.T) {
	c := redistest.Client(t)
	ctx := context.Background()
	key := redistest.Key(t, "{members}")
	b := season.NewBoard(c, key)
	if err := b.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Set(ctx, season.Entry{UserID: "seed", ReachedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err) // records the fingerprint
	}
	rng := rand.New(rand.NewPCG(11, 12))
	alphabet := []byte("0123456789abcdefABCDEF|: g-")
	refused, accepted := 0, 0
	for i := range 3000 {
		e := season.Entry{
			UserID:    fmt.Sprintf("u%d", i),
			Points:    rng.Uint64N(1 << 40),
			Wins:      uint16(rng.Uint32()),
			ReachedAt: time.UnixMilli(1767225600000 + rng.Int64N(2199023255551)).UTC(),
		}
		score, member, err := e.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if i%4 != 0 { // three in four: one byte of the prefix replaced
			m := []byte(member)
			m[rng.IntN(17)] = alphabet[rng.IntN(len(alphabet))]
			member = string(m)
		}
		_, decodeErr := season.Decode(score, member)
		pipe := c.Pipeline()
		pipe.ZAdd(ctx, key, redis.Z{Score: score, Member: member})
		pipe.HSet(ctx, b.Keys()[1], e.UserID, member)
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		_, err = b.AddWins(ctx, e.UserID, 0)
		if errors.Is(err, rankgenrt.ErrBadMember) != (decodeErr != nil) {
			t.Fatalf("member %q: update %v, Decode %v", member, err, decodeErr)
		}
		if decodeErr != nil {
			refused++
		} else {
			accepted++
			if err != nil {
				t.Fatalf("member %q: %v", member, err)
			}
		}
	}
	if refused < 500 || accepted < 750 {
		t.Fatalf("%d refused, %d accepted: the mutations do not exercise both sides", refused, accepted)
	}
}

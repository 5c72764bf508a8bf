package boardtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// replayCase is one write call to replay: setup puts the board in the state the call expects
// (without a token of the test's choosing), call is the write under test.
type replayCase struct {
	name  string
	setup func(ctx context.Context) error
	call  func(ctx context.Context) (any, error)
}

func arenaReplays(b *arena.Board) []replayCase {
	low := arena.Entry{PlayerID: "a", Points: 10, ReachedAt: time.Unix(1800000000, 0)}
	high := arena.Entry{PlayerID: "a", Points: 20, ReachedAt: time.Unix(1800000000, 0)}
	others := []arena.Entry{low, {PlayerID: "b", Points: 5, ReachedAt: low.ReachedAt}, {PlayerID: "c", Points: 1, ReachedAt: low.ReachedAt}}
	set := func(es ...arena.Entry) func(context.Context) error {
		return func(ctx context.Context) error { _, err := b.SetMany(ctx, es); return err }
	}
	return []replayCase{
		{"Set", set(high), // the call's Before: the replay answers with it, whatever the board holds
			func(ctx context.Context) (any, error) { return b.Set(ctx, low) }},
		{"SetMany", set(high),
			func(ctx context.Context) (any, error) { return b.SetMany(ctx, others[:2]) }},
		{"Best", set(low), func(ctx context.Context) (any, error) { return b.Best(ctx, high) }},
		{"BestMany", set(low), func(ctx context.Context) (any, error) { return b.BestMany(ctx, []arena.Entry{high}) }},
		{"Remove", set(low), func(ctx context.Context) (any, error) { return b.Remove(ctx, "a") }},
		{"Trim", set(others...), func(ctx context.Context) (any, error) { return b.Trim(ctx, 1) }},
		{"AddPoints", set(low), func(ctx context.Context) (any, error) { return b.AddPoints(ctx, "a", 5) }},
		{"AddPointsMany", set(low), func(ctx context.Context) (any, error) {
			return b.AddPointsMany(ctx, []arena.Update[int64]{{PlayerID: "a", Value: 5}, {PlayerID: "b", Value: 1}})
		}},
		{"MaxPoints", set(low), func(ctx context.Context) (any, error) { return b.MaxPoints(ctx, "a", 30) }},
		{"SetPaidMany", set(low), func(ctx context.Context) (any, error) {
			return b.SetPaidMany(ctx, []arena.Update[bool]{{PlayerID: "a", Value: true}})
		}},
		{"Update", set(low), func(ctx context.Context) (any, error) {
			return b.Update(ctx, "a", arena.AddPoints(5), arena.SetPaid(true))
		}},
		{"UpdateMany", set(low), func(ctx context.Context) (any, error) {
			return b.UpdateMany(ctx, []arena.Changes{{PlayerID: "a", Apply: []arena.Change{arena.MaxPoints(30)}}, {PlayerID: "b", Apply: []arena.Change{arena.AddPoints(1)}}})
		}},
		// A touch restamps "a" (set at another instant than now): a resend must not restamp it.
		{"Touch", set(low), func(ctx context.Context) (any, error) { return b.Touch(ctx, "a") }},
		{"TouchMany", set(low), func(ctx context.Context) (any, error) { return b.TouchMany(ctx, []string{"a", "n"}) }},
	}
}

func seasonReplays(b *season.Board) []replayCase {
	at := time.UnixMilli(1800000000000)
	low := season.Entry{UserID: "a", Points: 10, Tier: season.TierSilver, ReachedAt: at}
	high := season.Entry{UserID: "a", Points: 20, Tier: season.TierGold, ReachedAt: at}
	others := []season.Entry{low, {UserID: "b", Points: 5, ReachedAt: at}, {UserID: "c", Points: 1, ReachedAt: at}}
	set := func(es ...season.Entry) func(context.Context) error {
		return func(ctx context.Context) error { _, err := b.SetMany(ctx, es); return err }
	}
	return []replayCase{
		{"Set", set(high), // the call's Before: the replay answers with it, whatever the board holds
			func(ctx context.Context) (any, error) { return b.Set(ctx, low) }},
		{"Best", set(low), func(ctx context.Context) (any, error) { return b.Best(ctx, high) }},
		{"BestMany", set(low), func(ctx context.Context) (any, error) { return b.BestMany(ctx, []season.Entry{high}) }},
		{"Remove", set(low), func(ctx context.Context) (any, error) { return b.Remove(ctx, "a") }},
		{"Trim", set(others...), func(ctx context.Context) (any, error) { return b.Trim(ctx, 1) }},
		{"AddPoints", set(low), func(ctx context.Context) (any, error) { return b.AddPoints(ctx, "a", 5) }},
		{"AddPointsMany", set(low), func(ctx context.Context) (any, error) {
			return b.AddPointsMany(ctx, []season.Update[int64]{{UserID: "a", Value: 5}, {UserID: "b", Value: 1}})
		}},
		{"MaxTierMany", set(low), func(ctx context.Context) (any, error) {
			return b.MaxTierMany(ctx, []season.Update[season.Tier]{{UserID: "a", Value: season.TierGold}})
		}},
		{"Update", set(low), func(ctx context.Context) (any, error) {
			return b.Update(ctx, "a", season.AddWins(2), season.MaxTier(season.TierGold), season.AddPoints(5))
		}},
		{"UpdateMany", set(low), func(ctx context.Context) (any, error) {
			return b.UpdateMany(ctx, []season.Changes{{UserID: "a", Apply: []season.Change{season.AddWins(1)}}, {UserID: "b", Apply: []season.Change{season.SetWins(4)}}})
		}},
		{"Touch", set(low), func(ctx context.Context) (any, error) { return b.Touch(ctx, "a") }},
		{"TouchMany", set(low), func(ctx context.Context) (any, error) { return b.TouchMany(ctx, []string{"a", "n"}) }},
	}
}

// TestReplayWritesOnce: a write sent twice under one token (the same idempotency key) is
// applied once: the second call gets the first one's reply and leaves the board as it finds
// it, even when the board changed in between (setup restores what the first call changed).
func TestReplayWritesOnce(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { replayWritesOnce(t, tg.Client) })
}

func replayWritesOnce(t *testing.T, c redis.UniversalClient) {
	week := liveSeason(t, c, weeklyAt)
	boards := map[string]func(key string) ([]string, []replayCase){
		"arena": func(key string) ([]string, []replayCase) {
			b := arena.NewBoard(c, key)
			return b.Keys(), arenaReplays(b)
		},
		"season": func(key string) ([]string, []replayCase) {
			b := season.NewBoard(c, key)
			return b.Keys(), seasonReplays(b)
		},
		"laps": func(key string) ([]string, []replayCase) {
			b := laps.NewBoard(c, key)
			return b.Keys(), lapsReplays(b)
		},
		"weekly": func(key string) ([]string, []replayCase) {
			b := weekly.NewBoard(c, key, week)
			return b.Keys(), weeklyReplays(b)
		},
	}
	for name, board := range boards {
		_, cases := board("")
		for i := range cases {
			t.Run(name+"/"+cases[i].name, func(t *testing.T) {
				keys, cs := board(redistest.Key(t, "replay"))
				tc := cs[i]
				ctx := rankgenrt.WithIdempotencyKey(context.Background(), "replay-"+tc.name)
				if err := tc.setup(context.Background()); err != nil {
					t.Fatal(err)
				}
				first, err := tc.call(ctx)
				if err != nil {
					t.Fatal(err)
				}
				replayAnswersFirst(t, c, keys, tc, ctx, first)
			})
		}
	}
}

// replayAnswersFirst sets tc up again and replays its call under ctx's key: the replay must
// answer first, the first call's result, and leave the board's keys as it found them.
func replayAnswersFirst(t *testing.T, c redis.UniversalClient, keys []string, tc replayCase, ctx context.Context, first any) {
	t.Helper()
	if err := tc.setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := dump(t, c, keys)
	again, err := tc.call(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, again) {
		t.Errorf("replay answered %+v, the first call %+v", again, first)
	}
	if after := dump(t, c, keys); !reflect.DeepEqual(before, after) {
		t.Errorf("replay wrote:\nbefore %v\nafter  %v", before, after)
	}
}

// TestDedupWindowRotates: with a window of 1s a token is remembered for at least a second and
// forgotten within three; the ack keys then expire by themselves, so their memory is bounded
// by the writes of two windows.
func TestDedupWindowRotates(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { dedupWindowRotates(t, tg.Client) })
}

func dedupWindowRotates(t *testing.T, c redis.UniversalClient) {
	b := arena.NewBoard(c, redistest.Key(t, "rotate"), arena.WithDedupWindow(time.Second))
	add := func(ctx context.Context) uint32 {
		t.Helper()
		e, err := b.AddPoints(ctx, "a", 1)
		if err != nil {
			t.Fatal(err)
		}
		return e.Points
	}
	// The window is counted on the server from the first write, which the client cannot see: a
	// resend proves the token remembered only when the first call's start and the resend's reply
	// are less than the window apart. A loaded machine can stall longer; then the round is
	// retried under a new token (the stalled one may or may not have been forgotten).
	var token string
	for round := 1; ; round++ {
		token = fmt.Sprintf("rotating-%d", round)
		ctx := rankgenrt.WithIdempotencyKey(context.Background(), token)
		start := time.Now()
		first := add(ctx)
		time.Sleep(500 * time.Millisecond)
		again := add(ctx)
		if time.Since(start) >= time.Second {
			if round == 5 {
				t.Fatalf("5 rounds each took a second or more: the machine is too slow to time a 1s window")
			}
			continue
		}
		if first != uint32(round) || again != first {
			t.Fatalf("round %d: the first add gave Points %d, its resend within the window %d; want %d twice (applied once)", round, first, again, round)
		}
		ack := rankgenrt.AckKey(rankgenrt.AckBase(b.Key()), token)
		n, err := c.Exists(context.Background(), ack).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 && time.Since(start) < time.Second {
			t.Fatalf("the write's ack key %q is gone within the window", ack)
		}
		break
	}
	ctx := rankgenrt.WithIdempotencyKey(context.Background(), token)
	ack := rankgenrt.AckKey(rankgenrt.AckBase(b.Key()), token)
	deadline := time.Now().Add(4 * time.Second)
	for n := int64(1); n > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("ack key %q still exists 4s after the last write", ack)
		}
		time.Sleep(100 * time.Millisecond)
		var err error
		if n, err = c.Exists(context.Background(), ack).Result(); err != nil {
			t.Fatal(err)
		}
	}
	now := add(rankgenrt.WithIdempotencyKey(context.Background(), token+"-after"))
	if p := add(ctx); p != now+1 {
		t.Fatalf("the same key after its window: Points %d, want %d (forgotten, applied again)", p, now+1)
	}
}

// TestDedupOff: with a window of 0 writes record nothing (no ack keys), and a resend under the
// same key applies again.
func TestDedupOff(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { dedupOff(t, tg.Client) })
}

func dedupOff(t *testing.T, c redis.UniversalClient) {
	b := season.NewBoard(c, redistest.Key(t, "off"), season.WithDedupWindow(0))
	ctx := rankgenrt.WithIdempotencyKey(context.Background(), "same")
	for want := uint64(1); want <= 2; want++ {
		e, err := b.AddPoints(ctx, "a", 1)
		if err != nil || e.Points != want {
			t.Fatalf("AddPoints = %d, %v; want %d", e.Points, err, want)
		}
	}
	if keys := ackKeys(t, c, b.Key()); len(keys) != 0 {
		t.Fatalf("ack keys %q with dedup off, want none", keys)
	}
}

// TestAckMemory bounds the memory of a recorded write: the size of its ack key (MEMORY USAGE)
// for a single update (the most frequent write), with go-redis's default tokens, and checks
// that each write made one.
func TestAckMemory(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { ackMemory(t, tg.Client) })
}

func ackMemory(t *testing.T, c redis.UniversalClient) {
	b := arena.NewBoard(c, redistest.Key(t, "memory"), arena.WithDedupWindow(time.Hour))
	const writes = 2000
	for i := range writes {
		if _, err := b.AddPoints(context.Background(), fmt.Sprint("p", i%50), 1); err != nil {
			t.Fatal(err)
		}
	}
	keys := ackKeys(t, c, b.Key())
	if len(keys) != writes {
		t.Fatalf("%d ack keys after %d writes, want one each", len(keys), writes)
	}
	var total int64
	for _, k := range keys {
		n, err := c.MemoryUsage(context.Background(), k, 0).Result()
		if err != nil {
			t.Fatal(err)
		}
		if ttl := c.TTL(context.Background(), k).Val(); ttl <= 0 || ttl > time.Hour {
			t.Fatalf("ack key %q expires in %v, want within the hour's window", k, ttl)
		}
		total += n
	}
	per := float64(total) / writes
	t.Logf("ack memory: %d bytes for %d writes, %.0f bytes per recorded write (MEMORY USAGE; the keyspace adds its entries)", total, writes, per)
	// The test's keys are longer than most boards' ("TestAckMemory/..." in the hash tag).
	if per > 224 {
		t.Errorf("%.0f bytes per recorded write, want at most 224", per)
	}
}

// ackKeys returns the ack keys of the board under key (every write's token record), read
// with SCAN on the node that holds the board's slot.
func ackKeys(t *testing.T, c redis.UniversalClient, key string) []string {
	t.Helper()
	var keys []string
	scan := func(ctx context.Context, node *redis.Client) error {
		it := node.Scan(ctx, 0, rankgenrt.AckKey(rankgenrt.AckBase(key), "*"), 1000).Iterator()
		for it.Next(ctx) {
			keys = append(keys, it.Val())
		}
		return it.Err()
	}
	var err error
	if cc, ok := c.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(context.Background(), func(ctx context.Context, node *redis.Client) error {
			return scan(ctx, node) // the keys' slot lies on one master; the others hold none
		})
	} else {
		err = scan(context.Background(), c.(*redis.Client))
	}
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestBestChecksFingerprint: a Board that has seen its fingerprint (a read, a Best that wrote)
// still has Best check it: after the board is deleted and recreated by another layout's code,
// Best is refused with ErrLayoutMismatch and writes nothing.
func TestBestChecksFingerprint(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { bestChecksFingerprint(t, tg.Client) })
}

func bestChecksFingerprint(t *testing.T, c redis.UniversalClient) {
	b := arena.NewBoard(c, redistest.Key(t, "recreated"))
	at := time.Unix(1800000000, 0)
	for points := uint32(1); points <= 2; points++ {
		if w, err := b.Best(ctx, arena.Entry{PlayerID: "a", Points: points, ReachedAt: at}); err != nil || !w.Changed {
			t.Fatalf("Best = %+v, %v", w, err)
		}
	}
	if _, err := b.Get(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	keys := b.Keys()
	if err := c.Del(ctx, keys...).Err(); err != nil {
		t.Fatal(err)
	}
	// Another layout's code recreates the board: its fingerprint, its encoding.
	if err := c.Set(ctx, keys[1], "0123456789abcdef", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.ZAdd(ctx, keys[0], redis.Z{Score: 7, Member: "a"}).Err(); err != nil {
		t.Fatal(err)
	}
	before := dump(t, c, keys)
	w, err := b.Best(ctx, arena.Entry{PlayerID: "a", Points: 1000, ReachedAt: at})
	if !errors.Is(err, rankgenrt.ErrLayoutMismatch) || w.Changed {
		t.Fatalf("Best on another layout's board = %+v, %v; want ErrLayoutMismatch", w, err)
	}
	if after := dump(t, c, keys); !reflect.DeepEqual(before, after) {
		t.Errorf("Best wrote into another layout's board:\nbefore %v\nafter  %v", before, after)
	}
}

// TestResendAcrossUpgrade: earlier rankgen versions recorded a token with its operation and
// reply alone, first in two window hashes beside the board ({key}:ack0, {key}:ack1), then
// under the token's own key. A write resent under your own key across the upgrade (a queue
// redelivering a message, say) finds the record the earlier code made, in either place, and is
// not applied again: for every write kind of the replay cases, it is refused with
// ErrTokenReused (Why: ReusedUnknown), nothing written, since such a record does not say
// whether its reply answers this call (the same arguments, by code of the same layout); another
// write under the token is refused as another operation's.
func TestResendAcrossUpgrade(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c := tg.Client
		newBoard := func(key string) ([]string, []replayCase) {
			b := arena.NewBoard(c, key)
			return b.Keys(), arenaReplays(b)
		}
		_, cases := newBoard("")
		for i := range cases {
			for _, where := range []string{"window hash", "token key"} {
				t.Run(cases[i].name+"/"+where, func(t *testing.T) {
					key := redistest.Key(t, "upgrade")
					keys, cs := newBoard(key)
					tc := cs[i]
					token := "order-" + tc.name
					ctx := rankgenrt.WithIdempotencyKey(context.Background(), token)
					if err := tc.setup(context.Background()); err != nil {
						t.Fatal(err)
					}
					if _, err := tc.call(ctx); err != nil {
						t.Fatal(err)
					}
					// Rewrite the record as the earlier code wrote it: the operation and the
					// reply alone.
					ack := rankgenrt.AckKey(rankgenrt.AckBase(key), token)
					record, err := c.Get(ctx, ack).Result()
					if err != nil {
						t.Fatalf("the first call left no record under %s: %v", ack, err)
					}
					earlier, err := c.Eval(ctx, "local op, reply = cmsgpack.unpack(ARGV[1]) return cmsgpack.pack(op, reply)", nil, record).Text()
					if err != nil {
						t.Fatal(err)
					}
					if where == "token key" {
						err = c.Set(ctx, ack, earlier, time.Minute).Err()
					} else {
						// The window hash of field "" (the window's number), the token's field
						// holding the packed record.
						hash := rankgenrt.AckBase(key) + strconv.Itoa(i%2) // {key}:ack0 or {key}:ack1
						if err := c.Del(ctx, ack).Err(); err != nil {
							t.Fatal(err)
						}
						if err := c.HSet(ctx, hash, "", "29543321", token, earlier).Err(); err != nil {
							t.Fatal(err)
						}
						err = c.Expire(ctx, hash, time.Minute).Err()
					}
					if err != nil {
						t.Fatal(err)
					}
					if err := tc.setup(context.Background()); err != nil {
						t.Fatal(err)
					}
					before := withAcks(t, c, keys)
					got, err := tc.call(ctx)
					var re *rankgenrt.TokenReusedError
					if !errors.As(err, &re) || !errors.Is(err, rankgenrt.ErrTokenReused) || re.Why != rankgenrt.ReusedUnknown || re.First != re.Op {
						t.Errorf("resent over an earlier record: %+v, %v; want a *TokenReusedError of its own operation, why %s", got, err, rankgenrt.ReusedUnknown)
					}
					if after := withAcks(t, c, keys); !reflect.DeepEqual(before, after) {
						t.Errorf("the resend wrote:\nbefore %v\nafter  %v", before, after)
					}
					// Another write (its own script: Set and SetMany share one) under the token.
					other := cs[slices.IndexFunc(cs, func(r replayCase) bool { return r.name == "Remove" })]
					if tc.name == "Remove" {
						other = cs[slices.IndexFunc(cs, func(r replayCase) bool { return r.name == "Trim" })]
					}
					if _, err := other.call(ctx); !errors.As(err, &re) || re.Why != rankgenrt.ReusedByOperation {
						t.Errorf("%s under the token %s recorded: %v; want ErrTokenReused, another operation", other.name, tc.name, err)
					}
				})
			}
		}
	})
}

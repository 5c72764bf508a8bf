package boardtest

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/duel"
	"github.com/rankgen/rankgen/examples/generated/duelint"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

func sameSnapshot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("%s changed the board", what)
	}
}

func dumpKeys(t *testing.T, c redis.UniversalClient, keys ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, k := range keys {
		v, err := c.Dump(ctx, k).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			t.Fatal(err)
		}
		out[k] = v
	}
	return out
}

func TestOverflowErrorLeavesEntryUnchanged(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { overflowErrorLeavesEntryUnchanged(t, tg.Client) })
}

func overflowErrorLeavesEntryUnchanged(t *testing.T, c redis.UniversalClient) {
	b := arena.NewBoard(c, redistest.Key(t, "{arena}"))
	e := arena.Entry{PlayerID: "p", Points: 1<<20 - 2, ReachedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), Paid: true}
	if _, err := b.Set(ctx, e); err != nil {
		t.Fatal(err)
	}
	before := dumpKeys(t, c, b.Keys()...)
	for _, delta := range []int64{3, 1 << 40, -(1 << 20)} {
		got, err := b.AddPoints(ctx, "p", delta)
		var se *rankgenrt.ScriptError
		if !errors.Is(err, rankgenrt.ErrOverflow) || !errors.As(err, &se) || !strings.Contains(se.Detail, "field=Points") {
			t.Fatalf("AddPoints(%d) = %+v, %v; want ErrOverflow naming Points", delta, got, err)
		}
		sameSnapshot(t, "a refused AddPoints", before, dumpKeys(t, c, b.Keys()...))
	}
	got, err := b.AddPoints(ctx, "p", 1)
	if err != nil || got.Points != 1<<20-1 {
		t.Fatalf("AddPoints(1) = %+v, %v; want Points at its max", got, err)
	}
	if !got.ReachedAt.After(e.ReachedAt) {
		t.Fatalf("ReachedAt not stamped by the server: %v", got.ReachedAt)
	}
	// Unchanged value: no write, no stamp (the ack keys record the call, as for every write
	// that succeeds).
	before = dumpKeys(t, c, boardKeys(b.Keys())...)
	if again, err := b.MaxPoints(ctx, "p", 5); err != nil || again.Entry != got.Entry || again.Before != got.Entry || again.Changed {
		t.Fatalf("MaxPoints(lower) = %+v, %v; want %+v unchanged", again, err, got.Entry)
	}
	sameSnapshot(t, "a MaxPoints that changes nothing", before, dumpKeys(t, c, boardKeys(b.Keys())...))
}

func TestSaturateClamps(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { saturateClamps(t, tg.Client) })
}

func saturateClamps(t *testing.T, c redis.UniversalClient) {
	rb := racing.NewBoard(c, redistest.Key(t, "{racing}"))
	if _, err := rb.SetLaps(ctx, 9, 3); err != nil {
		t.Fatal(err)
	}
	if e, err := rb.AddRaceTime(ctx, 9, 1<<50); err != nil || e.RaceTime != 999999999 || e.Laps != 3 {
		t.Fatalf("AddRaceTime(huge) = %+v, %v; want RaceTime clamped to 999999999", e, err)
	}
	if e, err := rb.AddRaceTime(ctx, 9, -(1 << 50)); err != nil || e.RaceTime != 0 {
		t.Fatalf("AddRaceTime(-huge) = %+v, %v; want RaceTime clamped to 0", e, err)
	}
	if _, err := rb.AddLaps(ctx, 9, 1000); !errors.Is(err, rankgenrt.ErrOverflow) {
		t.Fatalf("AddLaps past 999: %v, want ErrOverflow", err)
	}
	sb := season.NewBoard(c, redistest.Key(t, "{season}"))
	if e, err := sb.AddPoints(ctx, "u", -5); err != nil || e.Points != 0 {
		t.Fatalf("season AddPoints(-5) on a new entry = %+v, %v; want 0 (saturate)", e, err)
	}
	if e, err := sb.AddPoints(ctx, "u", 1<<41); err != nil || e.Points != 1<<40-1 {
		t.Fatalf("season AddPoints(2^41) = %+v, %v; want 2^40-1", e, err)
	}
}

func TestBatchReportsPerEntryErrors(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { batchReportsPerEntryErrors(t, tg.Client) })
}

func batchReportsPerEntryErrors(t *testing.T, c redis.UniversalClient) {
	b := arena.NewBoard(c, redistest.Key(t, "{arena}"))
	res, err := b.AddPointsMany(ctx, []arena.Update[int64]{
		{PlayerID: "a", Value: 10},
		{PlayerID: "b", Value: 1 << 21}, // overflow: b is not created
		{PlayerID: "a", Value: 5},       // sees the first update
		{PlayerID: "", Value: 1},        // bad id, never sent
		{PlayerID: "a", Value: -100},    // overflow below 0: a stays at 15
	})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil || res[0].Entry.Points != 10 || res[2].Err != nil || res[2].Entry.Points != 15 {
		t.Fatalf("results %+v", res)
	}
	if !errors.Is(res[1].Err, rankgenrt.ErrOverflow) || !errors.Is(res[3].Err, rankgenrt.ErrOutOfRange) || !errors.Is(res[4].Err, rankgenrt.ErrOverflow) {
		t.Fatalf("errors %v %v %v", res[1].Err, res[3].Err, res[4].Err)
	}
	if _, err := b.Get(ctx, "b"); !errors.Is(err, rankgenrt.ErrNotFound) {
		t.Fatalf("Get(b) = %v; want ErrNotFound", err)
	}
	if e, err := b.Get(ctx, "a"); err != nil || e.Points != 15 {
		t.Fatalf("Get(a) = %+v, %v", e, err)
	}
}

func TestOutOfRangeRefusedBeforeRedis(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { outOfRangeRefusedBeforeRedis(t, tg.Client) })
}

func outOfRangeRefusedBeforeRedis(t *testing.T, c redis.UniversalClient) {
	b := season.NewBoard(c, redistest.Key(t, "{season}"))
	if _, err := b.AddWins(ctx, "u", 1); err != nil {
		t.Fatal(err)
	}
	before := dumpKeys(t, c, b.Keys()...)
	if _, err := b.MaxTier(ctx, "u", season.Tier(9)); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("MaxTier(9) = %v; want ErrOutOfRange", err)
	}
	if _, err := b.Set(ctx, season.Entry{UserID: "u", Points: 1 << 41}); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("Set(Points 2^41) = %v; want ErrOutOfRange", err)
	}
	if _, err := b.SetMany(ctx, []season.Entry{{UserID: "v", ReachedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}, {UserID: strings.Repeat("x", 49)}}); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("SetMany with a 49-byte id = %v; want ErrOutOfRange", err)
	}
	if _, err := b.Remove(ctx, ""); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("Remove(\"\") = %v; want ErrOutOfRange", err)
	}
	sameSnapshot(t, "refused writes", before, dumpKeys(t, c, b.Keys()...))
}

// TestLayoutMismatch: a board whose fingerprint is another layout's refuses every write and
// stays exactly as it was.
func TestLayoutMismatch(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { layoutMismatch(t, tg.Client) })
}

func layoutMismatch(t *testing.T, c redis.UniversalClient) {
	const other = "0123456789abcdef"

	ak := redistest.Key(t, "{arena}")
	c.ZAdd(ctx, ak, redis.Z{Score: 5, Member: "x"})
	c.Set(ctx, rankgenrt.MetaKey(ak), other, 0)
	a := arena.NewBoard(c, ak)
	aTTL := arena.NewBoard(c, ak, arena.WithTTL(time.Hour))
	before := dumpKeys(t, c, a.Keys()...)
	e := arena.Entry{PlayerID: "x", Points: 9, ReachedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
	checks := map[string]error{}
	_, checks["Set"] = a.Set(ctx, e)
	_, checks["Best"] = a.Best(ctx, e)
	_, checks["Best+TTL"] = aTTL.Best(ctx, e)
	_, checks["AddPoints"] = a.AddPoints(ctx, "x", 1)
	_, checks["SetPaid"] = a.SetPaid(ctx, "x", true)
	_, checks["Remove"] = a.Remove(ctx, "x")
	_, checks["Trim"] = a.Trim(ctx, 0)
	res, err := a.MaxPointsMany(ctx, []arena.Update[uint32]{{PlayerID: "x", Value: 7}})
	checks["MaxPointsMany"] = err
	for what, err := range checks {
		if !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
			t.Errorf("arena %s on another layout's board: %v; want ErrLayoutMismatch", what, err)
		}
	}
	if res != nil {
		t.Errorf("MaxPointsMany results %v on a refused call", res)
	}
	sameSnapshot(t, "refused writes", before, dumpKeys(t, c, a.Keys()...))

	sk := redistest.Key(t, "{season}")
	c.HSet(ctx, rankgenrt.IndexKey(sk), "", other, "u", "0000|00000000000|u")
	c.ZAdd(ctx, sk, redis.Z{Score: 4, Member: "0000|00000000000|u"})
	s := season.NewBoard(c, sk)
	before = dumpKeys(t, c, s.Keys()...)
	if _, err := s.Set(ctx, season.Entry{UserID: "u", ReachedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("season Set: %v", err)
	}
	if _, err := s.AddWins(ctx, "u", 1); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("season AddWins: %v", err)
	}
	if _, err := s.Best(ctx, season.Entry{UserID: "u", Points: 1, ReachedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("season Best: %v", err)
	}
	if _, err := s.Remove(ctx, "u"); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("season Remove: %v", err)
	}
	sameSnapshot(t, "refused season writes", before, dumpKeys(t, c, s.Keys()...))
}

// TestExpiryAppliedByEveryWrite: with WithTTL every write sets the TTL of both keys in its
// own script; with WithExpireAt the absolute expiry.
func TestExpiryAppliedByEveryWrite(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { expiryAppliedByEveryWrite(t, tg.Client) })
}

func expiryAppliedByEveryWrite(t *testing.T, c redis.UniversalClient) {
	key := redistest.Key(t, "{season}")
	b := season.NewBoard(c, key, season.WithTTL(time.Hour))
	at := time.Now().Add(2 * time.Hour).Truncate(time.Millisecond)
	ba := season.NewBoard(c, key, season.WithExpireAt(at))
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	writes := []struct {
		name string
		do   func(*season.Board) error
	}{
		{"Set", func(b *season.Board) error {
			_, err := b.Set(ctx, season.Entry{UserID: "a", Points: 3, ReachedAt: t0})
			return err
		}},
		{"Best", func(b *season.Board) error {
			_, err := b.Best(ctx, season.Entry{UserID: "a", Points: 4, ReachedAt: t0})
			return err
		}},
		{"AddPoints", func(b *season.Board) error { _, err := b.AddPoints(ctx, "b", 2); return err }},
		{"SetTier", func(b *season.Board) error { _, err := b.SetTier(ctx, "b", season.TierGold); return err }},
		{"Remove", func(b *season.Board) error { _, err := b.Remove(ctx, "a"); return err }},
		{"Trim", func(b *season.Board) error { _, err := b.Trim(ctx, 5); return err }},
	}
	for _, w := range writes {
		c.Persist(ctx, key)
		c.Persist(ctx, rankgenrt.IndexKey(key))
		if err := w.do(b); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		checkAckTTL(t, c, b.Keys())
		for _, k := range boardKeys(b.Keys()) {
			if d := c.PTTL(ctx, k).Val(); d <= 59*time.Minute || d > time.Hour {
				t.Fatalf("%s: PTTL %s = %v; want about an hour", w.name, k, d)
			}
		}
		if err := w.do(ba); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		for _, k := range boardKeys(ba.Keys()) {
			ms, err := c.Do(ctx, "PEXPIRETIME", k).Int64()
			if err != nil || ms != at.UnixMilli() {
				t.Fatalf("%s: PEXPIRETIME %s = %d, %v; want %d", w.name, k, ms, err, at.UnixMilli())
			}
		}
	}
	// A board without members in its prefix: the expiry forces Best through its script.
	ak := redistest.Key(t, "{arena}")
	a := arena.NewBoard(c, ak, arena.WithTTL(time.Minute))
	if _, err := a.Best(ctx, arena.Entry{PlayerID: "p", Points: 1, ReachedAt: t0}); err != nil {
		t.Fatal(err)
	}
	checkAckTTL(t, c, a.Keys())
	for _, k := range boardKeys(a.Keys()) {
		if d := c.PTTL(ctx, k).Val(); d <= 0 || d > time.Minute {
			t.Fatalf("arena Best: PTTL %s = %v", k, d)
		}
	}
}

// TestHugeLimits: limits near MaxInt64 read to the end instead of overflowing.
func TestHugeLimits(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { hugeLimits(t, tg.Client) })
}

func hugeLimits(t *testing.T, c redis.UniversalClient) {
	b := racing.NewBoard(c, redistest.Key(t, "{racing}"))
	for car := uint64(1); car <= 5; car++ {
		if _, err := b.AddLaps(ctx, car, int64(car)); err != nil {
			t.Fatal(err)
		}
	}
	const huge = 1<<63 - 1
	if p, err := b.Page(ctx, 2, huge); err != nil || len(p) != 3 || p[0].Rank != 3 {
		t.Fatalf("Page(2, MaxInt64) = %+v, %v", p, err)
	}
	if p, err := b.Around(ctx, 4, 1, huge); err != nil || len(p) != 5 || p[0].Car != 5 || p[1].Rank != 2 {
		t.Fatalf("Around(4, 1, MaxInt64) = %+v, %v", p, err)
	}
	if p, _, err := b.After(ctx, racing.Cursor{}, huge); err != nil || len(p) != 5 {
		t.Fatalf("After(top, MaxInt64) = %+v, %v", p, err)
	}
}

// boardKeys are the keys of Board.Keys() that hold the board (the sorted set and its index or
// meta key), without the ack keys, which hold recorded write tokens and expire by themselves.
func boardKeys(keys []string) []string { return keys[:2] }

// checkAckTTL checks that the ack keys of Board.Keys(), where they exist, expire within two
// dedup windows, whatever the board's own expiry.
func checkAckTTL(t testing.TB, c redis.UniversalClient, keys []string) {
	t.Helper()
	for _, k := range keys[2:] {
		d, err := c.PTTL(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if d != -2 && (d <= 0 || d > 2*rankgenrt.DefaultDedupWindow) {
			t.Fatalf("PTTL %s = %v; want at most two dedup windows", k, d)
		}
	}
}

// TestWritesRefuseTheOtherKindOfLayout: a layout without a member prefix keeps its fingerprint
// in a meta key, one with a prefix in an index. A write of one kind to a board the other kind
// wrote finds no fingerprint of its own kind: it is refused by the other's (ErrLayoutMismatch,
// which ErrRetry matches: during a migration between the two, retry with the board's code),
// writes nothing, and never claims the board (duel: bits62, bare ids; duelint: an integer
// score, a member prefix and an index).
func TestWritesRefuseTheOtherKindOfLayout(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c := tg.Client
		at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		refused := func(t *testing.T, keys []string, writes map[string]func() error) {
			t.Helper()
			before := dumpKeys(t, c, keys...)
			for what, write := range writes {
				if err := write(); !errors.Is(err, rankgenrt.ErrLayoutMismatch) || !errors.Is(err, rankgenrt.ErrRetry) {
					t.Errorf("%s: %v; want ErrLayoutMismatch (ErrRetry)", what, err)
				}
			}
			if after := dumpKeys(t, c, keys...); !reflect.DeepEqual(before, after) {
				t.Errorf("refused writes changed the board's keys")
			}
		}
		t.Run("bare ids on an indexed board", func(t *testing.T) {
			key := redistest.Key(t, "{duel}")
			indexed, bare := duelint.NewBoard(c, key), duel.NewBoard(c, key)
			if _, err := indexed.Set(ctx, duelint.Entry{PlayerID: "ana", Points: 5, ReachedAt: at}); err != nil {
				t.Fatal(err)
			}
			refused(t, append(indexed.Keys(), bare.Keys()...), map[string]func() error{
				"Set": func() error {
					_, err := bare.Set(ctx, duel.Entry{PlayerID: "bo", Points: 7, ReachedAt: at})
					return err
				},
				"AddPoints": func() error { _, err := bare.AddPoints(ctx, "ana", 1); return err },
				"Best": func() error {
					_, err := bare.Best(ctx, duel.Entry{PlayerID: "ana", Points: 9, ReachedAt: at})
					return err
				},
			})
		})
		t.Run("a prefix on a bare board", func(t *testing.T) {
			key := redistest.Key(t, "{duel}")
			bare, indexed := duel.NewBoard(c, key), duelint.NewBoard(c, key)
			if _, err := bare.Set(ctx, duel.Entry{PlayerID: "ana", Points: 5, ReachedAt: at}); err != nil {
				t.Fatal(err)
			}
			refused(t, append(indexed.Keys(), bare.Keys()...), map[string]func() error{
				"Set": func() error {
					_, err := indexed.Set(ctx, duelint.Entry{PlayerID: "bo", Points: 7, ReachedAt: at})
					return err
				},
				"AddPoints": func() error { _, err := indexed.AddPoints(ctx, "ana", 1); return err },
			})
		})
	})
}

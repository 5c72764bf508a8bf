package boardtest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// TestReadsRefuseAnotherLayout: every read of a board whose fingerprint is another layout's
// fails with ErrLayoutMismatch instead of decoding that layout's entries as this one's.
func TestReadsRefuseAnotherLayout(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { readsRefuseAnotherLayout(t, tg.Client) })
}

func readsRefuseAnotherLayout(t *testing.T, c redis.UniversalClient) {
	const other = "0123456789abcdef"

	ak := redistest.Key(t, "{arena}")
	c.ZAdd(ctx, ak, redis.Z{Score: 5, Member: "x"})
	c.Set(ctx, rankgenrt.MetaKey(ak), other, 0)
	a := arena.NewBoard(c, ak)
	reads := map[string]error{}
	_, reads["Get"] = a.Get(ctx, "x")
	_, reads["Rank"] = a.Rank(ctx, "x")
	_, reads["CompetitionRank"] = a.CompetitionRank(ctx, "x")
	_, reads["Top"] = a.Top(ctx, 10)
	_, reads["Page"] = a.Page(ctx, 0, 10)
	_, reads["Around"] = a.Around(ctx, "x", 1, 1)
	_, _, reads["After"] = a.After(ctx, arena.Cursor{}, 10)
	_, reads["Count"] = a.Count(ctx)
	_, reads["RangePoints"] = a.RangePoints(ctx, 0, 100, 0, 10)
	_, reads["GetMany"] = a.GetMany(ctx, "x", "y")
	_, reads["RankMany"] = a.RankMany(ctx, "x", "y")
	_, reads["Bottom"] = a.Bottom(ctx, 10)
	_, reads["PageFromEnd"] = a.PageFromEnd(ctx, 1, 10)
	_, reads["AroundFilled"] = a.AroundFilled(ctx, "x", 1, 1)
	_, reads["Percentile"] = a.Percentile(ctx, "x")
	_, reads["PageOf"] = a.PageOf(ctx, "x", 10)
	_, reads["CompetitionRankTuple"] = a.CompetitionRankTuple(ctx, "x")
	_, reads["DenseRank"] = a.DenseRank(ctx, "x")
	_, reads["CountPointsBetween"] = a.CountPointsBetween(ctx, 0, 100)
	_, reads["Between"] = a.Between(ctx, arena.PointsBetween(0, 100), 0, 10)
	_, reads["CountBetween"] = a.CountBetween(ctx, arena.PointsIs(5).ReachedAtBetween(time.Unix(1767225600, 0), time.Unix(1800000000, 0)))
	_, reads["AroundScore"] = a.AroundScore(ctx, arena.PointsIs(5), 2, 2)
	for what, err := range reads {
		if !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
			t.Errorf("arena %s on another layout's board: %v; want ErrLayoutMismatch", what, err)
		}
	}

	sk := redistest.Key(t, "{season}")
	c.HSet(ctx, rankgenrt.IndexKey(sk), "", other, "u", "0000|00000000000|u")
	c.ZAdd(ctx, sk, redis.Z{Score: 4, Member: "0000|00000000000|u"})
	s := season.NewBoard(c, sk)
	if _, err := s.Get(ctx, "u"); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("season Get: %v", err)
	}
	if _, err := s.Top(ctx, 10); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("season Top: %v", err)
	}
	if _, err := s.GetMany(ctx, "u", "v"); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("season GetMany: %v", err)
	}
	if _, err := s.RankMany(ctx, "u", "v"); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("season RankMany: %v", err)
	}
}

// commandCounter counts the commands a client sends, and its round trips (a pipeline is one);
// last is the name of the last command sent alone.
type commandCounter struct {
	cmds, trips atomic.Int64
	last        atomic.Value
}

func (h *commandCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *commandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.cmds.Add(1)
		h.trips.Add(1)
		h.last.Store(cmd.Name())
		return next(ctx, cmd)
	}
}
func (h *commandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.cmds.Add(int64(len(cmds)))
		h.trips.Add(1)
		return next(ctx, cmds)
	}
}

// TestReadsCheckInTheirRoundTrip: every read is one round trip. A read command goes out
// pipelined behind the fingerprint's reads, where its layout records it and where a layout of
// the other kind would (3 commands, 1 round trip), every time: a Board that has read the board
// before still refuses it once a migration has switched it to another layout. Read scripts
// check the fingerprint themselves: always 1 command.
func TestReadsCheckInTheirRoundTrip(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { readsCheckInTheirRoundTrip(t, tg.Client) })
}

func readsCheckInTheirRoundTrip(t *testing.T, c redis.UniversalClient) {
	// Open the connection first: its handshake (HELLO, CLIENT SETINFO) is not a read's.
	if _, err := c.Pipelined(ctx, func(p redis.Pipeliner) error { return p.Ping(ctx).Err() }); err != nil {
		t.Fatal(err)
	}
	key := redistest.Key(t, "{arena}")
	a := arena.NewBoard(c, key)
	if err := a.Load(ctx); err != nil { // else a function's first FCALL finds it missing, then loads it
		t.Fatal(err)
	}
	h := &commandCounter{}
	c.AddHook(h)
	check := func(what string, wantCmds int64, f func() error) {
		t.Helper()
		cmds, trips := h.cmds.Load(), h.trips.Load()
		if err := f(); err != nil && !errors.Is(err, rankgenrt.ErrNotFound) {
			t.Fatalf("%s: %v", what, err)
		}
		if n := h.trips.Load() - trips; n != 1 {
			t.Errorf("%s: %d round trips, want 1", what, n)
		}
		if n := h.cmds.Load() - cmds; n != wantCmds {
			t.Errorf("%s: %d commands, want %d", what, n, wantCmds)
		}
	}
	top := func() error { _, err := a.Top(ctx, 10); return err }
	around := func() error { _, err := a.Around(ctx, "x", 1, 1); return err }

	check("Top of an empty board", 3, top)
	check("Top again, still no fingerprint", 3, top)
	check("Around", 1, around)
	if _, err := a.Set(ctx, arena.Entry{PlayerID: "x", Points: 3, ReachedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		check("Top after a write", 3, top)
	}
	check("Rank", 3, func() error { _, err := a.Rank(ctx, "x"); return err })
	check("Around after a write", 1, around)
	check("GetMany", 1, func() error { _, err := a.GetMany(ctx, "x", "y", "z"); return err })
	check("RankMany", 1, func() error { _, err := a.RankMany(ctx, "x", "y", "z"); return err })
	check("Bottom", 1, func() error { _, err := a.Bottom(ctx, 10); return err })
	check("AroundFilled", 1, func() error { _, err := a.AroundFilled(ctx, "x", 1, 1); return err })
	check("Percentile", 1, func() error { _, err := a.Percentile(ctx, "x"); return err })
	check("PageOf", 1, func() error { _, err := a.PageOf(ctx, "x", 10); return err })
	check("CompetitionRankTuple", 1, func() error { _, err := a.CompetitionRankTuple(ctx, "x"); return err })
	check("DenseRank", 1, func() error { _, err := a.DenseRank(ctx, "x"); return err })
	check("Between", 1, func() error { _, err := a.Between(ctx, arena.PointsBetween(0, 100), 0, 10); return err })
	check("CountBetween", 3, func() error { _, err := a.CountBetween(ctx, arena.PointsBetween(0, 100)); return err })
	check("AroundScore", 1, func() error { _, err := a.AroundScore(ctx, arena.PointsIs(3), 1, 1); return err })
	check("Count", 3, func() error { _, err := a.Count(ctx); return err })
	// The board switched to another layout (as a migration's switch does): a's plain reads,
	// which saw its own fingerprint before, refuse it, in the same round trip.
	if err := c.Set(ctx, rankgenrt.MetaKey(key), "0123456789abcdef", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for what, read := range map[string]func() error{
		"Top":   top,
		"Count": func() error { _, err := a.Count(ctx); return err },
		"Rank":  func() error { _, err := a.Rank(ctx, "x"); return err },
	} {
		if err := read(); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
			t.Errorf("%s after the board switched layout: %v; want ErrLayoutMismatch", what, err)
		}
	}
}

// TestBestOneRoundTrip: Best on a bare-id board runs its script every time (which checks the
// fingerprint and records the call's token): one command each time.
func TestBestOneRoundTrip(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { bestOneRoundTrip(t, tg.Client) })
}

func bestOneRoundTrip(t *testing.T, c redis.UniversalClient) {
	if _, err := c.Pipelined(ctx, func(p redis.Pipeliner) error { return p.Ping(ctx).Err() }); err != nil {
		t.Fatal(err)
	}
	key := redistest.Key(t, "{arena}")
	a := arena.NewBoard(c, key)
	if err := a.Load(ctx); err != nil { // else the first FCALL finds the library missing, then loads it
		t.Fatal(err)
	}
	h := &commandCounter{}
	c.AddHook(h)
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for i, want := range []string{"fcall", "fcall", "fcall"} {
		cmds := h.cmds.Load()
		w, err := a.Best(ctx, arena.Entry{PlayerID: "x", Points: uint32(10 + i), ReachedAt: at})
		if err != nil || !w.Changed {
			t.Fatalf("Best #%d = %+v, %v", i, w, err)
		}
		if n, last := h.cmds.Load()-cmds, h.last.Load(); n != 1 || last != want {
			t.Errorf("Best #%d: %d commands, last %v; want 1, %s", i, n, last, want)
		}
	}
	if fp := c.Get(ctx, rankgenrt.MetaKey(key)).Val(); fp != arena.Fingerprint {
		t.Errorf("meta key = %q, want the fingerprint", fp)
	}
}

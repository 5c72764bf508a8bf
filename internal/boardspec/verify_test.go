package boardspec

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// TestReadsRefuseAnotherLayout: every read of a board whose fingerprint is another layout's
// fails with ErrLayoutMismatch instead of decoding that layout's entries as this one's.
func TestReadsRefuseAnotherLayout(t *testing.T) {
	c := redistest.Client(t)
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
}

// commandCounter counts the commands a client sends, pipelined ones included.
type commandCounter struct{ n atomic.Int64 }

func (h *commandCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *commandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}
func (h *commandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// TestReadsVerifyOncePerBoard: a Board checks the fingerprint with one extra command before its
// first read, and never again once it has seen its own; a board with no fingerprint yet is read
// (and checked again next time), and a write's own check makes no difference to that.
func TestReadsVerifyOncePerBoard(t *testing.T) {
	c := redistest.Client(t)
	h := &commandCounter{}
	c.AddHook(h)
	key := redistest.Key(t, "{arena}")
	a := arena.NewBoard(c, key)
	count := func(f func() error) int64 {
		t.Helper()
		n := h.n.Load()
		if err := f(); err != nil {
			t.Fatal(err)
		}
		return h.n.Load() - n
	}
	top := func() error { _, err := a.Top(ctx, 10); return err }

	if n := count(top); n != 2 {
		t.Fatalf("Top of an empty board: %d commands, want 2 (the check and ZRANGE)", n)
	}
	if n := count(top); n != 2 {
		t.Fatalf("Top again, still no fingerprint: %d commands, want 2", n)
	}
	if err := a.Set(ctx, arena.Entry{PlayerID: "x", Points: 3, ReachedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	if n := count(top); n != 2 {
		t.Fatalf("first Top after a write: %d commands, want 2", n)
	}
	for range 3 {
		if n := count(top); n != 1 {
			t.Fatalf("Top once verified: %d commands, want 1", n)
		}
	}
	if n := count(func() error { _, err := a.Rank(ctx, "x"); return err }); n != 1 {
		t.Fatalf("Rank once verified: %d commands, want 1", n)
	}
	// A second Board of the same key checks for itself.
	b := arena.NewBoard(c, key)
	if n := count(func() error { _, err := b.Count(ctx); return err }); n != 2 {
		t.Fatalf("first Count of a new Board: %d commands, want 2", n)
	}
}

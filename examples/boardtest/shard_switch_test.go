package boardtest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/v1"
	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/v3"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// TestShardsSwitchTogether: migrate.RunBoard moves a sharded board's shards together (every
// shard copies and catches up, and waits at the gate; then each closes its fence and switches),
// while a writer writes and readers merge the shards. Every merged read is right or refused as
// ErrLayoutMismatch, only while the shards switch; no shard closes its fence before every shard
// is ready. On one server and on a cluster, whose shards lie in several hash slots.
func TestShardsSwitchTogether(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { shardsSwitchTogether(t, tg.Client, tg.Size(8000, 4000)) })
}

func shardsSwitchTogether(t *testing.T, c redis.UniversalClient, n int) {
	const shards = 4
	key := redistest.Key(t, "together")
	keys, err := rankgenrt.ShardKeys(key, shards)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		id := fmt.Sprintf("p%05d", i)
		if _, err := v1.NewBoard(c, keys[rankgenrt.ShardOf(id, shards)]).Set(ctx, v1.Entry{PlayerID: id, Points: uint32(1000 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	s3, err := v3.NewShardedBoard(c, key, shards)
	if err != nil {
		t.Fatal(err)
	}
	top, err := s3.Top(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var reads, refused atomic.Int64
	var firstRefusal, lastRefusal atomic.Int64 // Unix nanoseconds
	var wrong atomic.Value
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				got, err := s3.Top(ctx, 10)
				count, cerr := s3.Count(ctx)
				reads.Add(1)
				switch {
				case errors.Is(err, rankgenrt.ErrLayoutMismatch) || errors.Is(cerr, rankgenrt.ErrLayoutMismatch):
					now := time.Now().UnixNano()
					refused.Add(1)
					firstRefusal.CompareAndSwap(0, now)
					lastRefusal.Store(now)
				case err != nil || cerr != nil:
					wrong.Store(fmt.Sprintf("a merged read failed: %v, %v", err, cerr))
					return
				case !slices.Equal(got, top) || count != int64(n):
					wrong.Store(fmt.Sprintf("a merged read answered %d entries, top %+v; want %d, %+v", count, got, n, top))
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // writes below the top ten, in v1's layout until each shard switches
		defer wg.Done()
		for i := 0; ; i = (i + 7) % (n - 100) {
			select {
			case <-stop:
				return
			default:
			}
			id := fmt.Sprintf("p%05d", i)
			if _, err := s3.AddPoints(ctx, id, 1); err != nil && !errors.Is(err, rankgenrt.ErrRetry) {
				wrong.Store(fmt.Sprintf("AddPoints %s: %v", id, err))
				return
			}
		}
	}()

	var mu sync.Mutex
	var phases []string
	rep, err := migrate.RunBoard(ctx, c, previousPlan(t, "internal/compat/v3/v3.yaml"), migrate.Options{Key: key, Shards: shards,
		Progress: func(p migrate.Progress) {
			if p.Phase == "ready" || p.Phase == "closing" {
				mu.Lock()
				phases = append(phases, p.Phase)
				mu.Unlock()
			}
		}})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if w := wrong.Load(); w != nil {
		t.Fatal(w)
	}
	if want := []string{"ready", "ready", "ready", "ready", "closing", "closing", "closing", "closing"}; !slices.Equal(phases, want) {
		t.Fatalf("the shards' phases came %v; want every shard ready before any closes its fence", phases)
	}
	first, last := rep.Parts[0].SwitchedAt, rep.Parts[0].SwitchedAt
	var closed time.Duration
	for _, r := range rep.Parts {
		first, last = minTime(first, r.SwitchedAt), maxTime(last, r.SwitchedAt)
		closed = max(closed, r.Closed)
	}
	span := time.Duration(0)
	if refused.Load() > 0 {
		span = time.Duration(lastRefusal.Load() - firstRefusal.Load())
	}
	t.Logf("%d entries, %d shards: switches within %v (the longest closed fence %v); %d of %d merged reads refused, within %v",
		n, shards, last.Sub(first).Round(time.Microsecond), closed.Round(time.Microsecond), refused.Load(), reads.Load(), span.Round(time.Microsecond))
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

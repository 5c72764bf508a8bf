package boardtest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/duelint"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// nextSecond sleeps until Redis's clock has entered the second after the one it reads now, so
// that a stamp in whole seconds (arena's ReachedAt) moves.
func nextSecond(t *testing.T, c redis.UniversalClient) {
	t.Helper()
	now := serverNow(t, c)
	time.Sleep(now.Truncate(time.Second).Add(time.Second + 10*time.Millisecond).Sub(now))
}

// TestTouchOrdersTies: a play that scores nothing still counts. Two arena players equal on
// Points (ReachedAt asc: the earlier ranks first) swap places as their touches' stamps say,
// their other fields as they were; a touch of an id without an entry stores the zero entry,
// stamped; on duelint, whose ReachedAt lies in the member, the touch moves the member and its
// index entry.
func TestTouchOrdersTies(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c := tg.Client
		b := arena.NewBoard(c, redistest.Key(t, "{arena}"))
		t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
		ana := arena.Entry{PlayerID: "ana", Points: 10, ReachedAt: t0, Paid: true}
		if _, err := b.SetMany(ctx, []arena.Entry{ana, {PlayerID: "bo", Points: 10, ReachedAt: t0, Paid: true}}); err != nil {
			t.Fatal(err)
		}
		order := func(want ...string) {
			t.Helper()
			top, err := b.Top(ctx, 10)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range top {
				got = append(got, r.PlayerID)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("Top = %v; want %v", got, want)
			}
		}
		order("bo", "ana") // equal: ties by id, larger first
		w, err := b.Touch(ctx, "bo")
		if err != nil || !w.Existed || !w.Changed || w.Before.ReachedAt != t0 || w.Points != 10 || !w.ReachedAt.After(t0) {
			t.Fatalf("Touch(bo) = %+v, %v; want bo with 10 Points, restamped after %v", w, err, t0)
		}
		order("ana", "bo") // bo played later
		nextSecond(t, c)
		res, err := b.TouchMany(ctx, []string{"ana", "cy"})
		if err != nil || res[0].Err != nil || res[1].Err != nil {
			t.Fatalf("TouchMany = %+v, %v", res, err)
		}
		if got := res[0].Entry; got.Points != 10 || !got.Paid || !got.ReachedAt.After(w.ReachedAt) {
			t.Fatalf("TouchMany ana = %+v; want 10 Points, Paid, stamped after bo's %v", got, w.ReachedAt)
		}
		order("bo", "ana", "cy") // now ana played last; cy has no Points
		cy := res[1]
		if cy.Existed || !cy.Changed || cy.Points != 0 || cy.Paid || !cy.ReachedAt.Equal(res[0].ReachedAt) {
			t.Fatalf("TouchMany cy = %+v; want the zero entry stamped as ana (one clock a call)", cy)
		}
		if got, err := b.Get(ctx, "cy"); err != nil || got != cy.Entry {
			t.Fatalf("Get(cy) = %+v, %v; want %+v", got, err, cy.Entry)
		}

		d := duelint.NewBoard(c, redistest.Key(t, "{duelint}"))
		if _, err := d.Set(ctx, duelint.Entry{PlayerID: "p", Points: 7, Wins: 2, ReachedAt: t0}); err != nil {
			t.Fatal(err)
		}
		dw, err := d.Touch(ctx, "p")
		if err != nil || dw.Points != 7 || dw.Wins != 2 || !dw.ReachedAt.After(t0) {
			t.Fatalf("duelint Touch = %+v, %v; want 7 Points, 2 Wins, restamped", dw, err)
		}
		if n, err := c.ZCard(ctx, d.Keys()[0]).Result(); err != nil || n != 1 {
			t.Fatalf("duelint after Touch: %d members (%v); want the old one replaced", n, err)
		}
		if got, err := d.Get(ctx, "p"); err != nil || got != dw.Entry {
			t.Fatalf("duelint Get = %+v, %v; want %+v (through the index)", got, err, dw.Entry)
		}
	})
}

// TestTouchResendDoesNotRestamp: a touch resent under its idempotency key, a second later,
// answers the first call's reply and leaves the stamp as the first call set it; without the
// key the touch stamps again.
func TestTouchResendDoesNotRestamp(t *testing.T) {
	c := redistest.Client(t)
	b := arena.NewBoard(c, redistest.Key(t, "{arena}"))
	kctx := rankgenrt.WithIdempotencyKey(context.Background(), "touch-1")
	first, err := b.Touch(kctx, "ana")
	if err != nil {
		t.Fatal(err)
	}
	nextSecond(t, c)
	again, err := b.Touch(kctx, "ana")
	if err != nil || again != first {
		t.Fatalf("resent Touch = %+v, %v; want the first reply %+v", again, err, first)
	}
	if got, err := b.Get(ctx, "ana"); err != nil || !got.ReachedAt.Equal(first.ReachedAt) {
		t.Fatalf("after the resend Get = %+v, %v; want the first stamp %v", got, err, first.ReachedAt)
	}
	if _, err := b.AddPoints(kctx, "ana", 1); !errors.Is(err, rankgenrt.ErrTokenReused) {
		t.Fatalf("AddPoints under the touch's key: %v; want ErrTokenReused", err)
	}
	later, err := b.Touch(ctx, "ana")
	if err != nil || !later.Changed || !later.ReachedAt.After(first.ReachedAt) {
		t.Fatalf("a new Touch = %+v, %v; want a stamp after %v", later, err, first.ReachedAt)
	}
}

// TestTouchRefusesAnotherLayout: a touch of a board another layout wrote is refused with
// ErrLayoutMismatch, the board byte for byte as it was.
func TestTouchRefusesAnotherLayout(t *testing.T) {
	c := redistest.Client(t)
	key := redistest.Key(t, "{shared}")
	if _, err := duelint.NewBoard(c, key).AddPoints(ctx, "p", 3); err != nil {
		t.Fatal(err)
	}
	b := arena.NewBoard(c, key)
	keys := b.Keys()[:2]
	snap := dumpKeys(t, c, keys...)
	if _, err := b.Touch(ctx, "p"); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("arena Touch on duelint's board: %v; want ErrLayoutMismatch", err)
	}
	if _, err := b.TouchMany(ctx, []string{"p", "q"}); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("arena TouchMany on duelint's board: %v; want ErrLayoutMismatch", err)
	}
	sameSnapshot(t, "a refused touch", snap, dumpKeys(t, c, keys...))
}

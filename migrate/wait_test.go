package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/duel"
	"github.com/rankgen/rankgen/examples/generated/duelint"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestRetryAfterWaitEndsSoonAfterSwitch migrates a board of 20,000 duel entries in place to
// duelint's layout while 8 writers of the new code write, each retrying after every
// MigratingError's Wait, as README says, until its write goes through. Each writer is refused
// at least once (the migration's first batch waits for that), every Wait is at most 100 ms
// (the bound the write scripts give it: no load makes it longer), and the test reports how
// long after the switch each writer's first write went through.
func TestRetryAfterWaitEndsSoonAfterSwitch(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key := redistest.Key(t, "board")
	p, err := migrate.NewPlan(exampleSchema(t, "duel.yaml", same), exampleSchema(t, "duel_integer.yaml", same), migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	const n, writers = 20_000, 8
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	old := duel.NewBoard(c, key)
	for i := 0; i < n; i += 2000 {
		batch := make([]duel.Entry, 0, 2000)
		for j := i; j < i+2000; j++ {
			batch = append(batch, duel.Entry{PlayerID: fmt.Sprintf("p%06d", j), Points: uint32(j), ReachedAt: at})
		}
		if _, err := old.SetMany(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}

	type writer struct {
		waits []time.Duration // every Wait it was given
		wrote time.Time       // when its write went through
		err   error
	}
	ws := make([]writer, writers)
	start, refused, done := make(chan struct{}), make(chan struct{}, writers), make(chan struct{}, writers)
	for i := range ws {
		w := &ws[i]
		go func() {
			defer func() { done <- struct{}{} }()
			<-start
			b := duelint.NewBoard(c, key)
			for {
				_, err := b.Set(ctx, duelint.Entry{PlayerID: fmt.Sprintf("w%d", i), Points: 7, ReachedAt: at})
				var me *rankgenrt.MigratingError
				switch {
				case err == nil:
					w.wrote = time.Now()
				case errors.As(err, &me):
					w.waits = append(w.waits, me.Wait)
					if len(w.waits) == 1 {
						refused <- struct{}{}
					}
					time.Sleep(me.Wait)
					continue
				default:
					w.err = err
				}
				if len(w.waits) == 0 {
					refused <- struct{}{}
				}
				return
			}
		}()
	}
	started := false
	rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: key, Progress: func(pr migrate.Progress) {
		if !started { // the fence stands: every writer meets it before the migration goes on
			started = true
			close(start)
			for range writers {
				<-refused
			}
		}
	}})
	if err != nil || !rep.Switched {
		t.Fatalf("migrate: %+v, %v", rep, err)
	}
	for range writers {
		<-done
	}
	var after []time.Duration
	var waits int
	longest := time.Duration(0)
	for i, w := range ws {
		if w.err != nil || w.wrote.IsZero() || len(w.waits) == 0 {
			t.Fatalf("writer %d: %v after %d refusals; want refused, then written", i, w.err, len(w.waits))
		}
		after = append(after, w.wrote.Sub(rep.SwitchedAt))
		waits += len(w.waits)
		longest = max(longest, slices.Max(w.waits))
	}
	slices.Sort(after)
	t.Logf("fence stood %v; %d writers, %d refusals, the longest Wait %v; first write after the switch: median %v, longest %v",
		rep.Fenced.Round(time.Millisecond), writers, waits, longest, after[len(after)/2].Round(time.Millisecond), after[len(after)-1].Round(time.Millisecond))
	if longest > 100*time.Millisecond {
		t.Errorf("a writer was told to wait %v; want at most 100ms", longest)
	}
}

package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// bestAt is Best on a board whose members are bare ids: the entry that ranks first is the one
// with the higher score, which ZADD GT keeps.
func bestAt(ctx context.Context, c redis.UniversalClient, l *layout.Layout, key, id string, points uint64) error {
	score, member, err := l.Encode(layout.Entry{ID: id, Keys: []uint64{points}})
	if err != nil {
		return err
	}
	return c.ZAddGT(ctx, key, redis.Z{Score: score, Member: member}).Err()
}

// TestDualWriteBestKeepsEveryPlayersBest is the dual-write window of docs/migration.md's recipe on a
// board written by Best: players submit to the old board, then writers submit each score to
// both boards while migrate -to-key copies the old one. Every player ends at their best over
// all submissions, whether the first run finished or was refused because the boards differed
// for a moment; a rerun once the writers stopped finishes.
func TestDualWriteBestKeepsEveryPlayersBest(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key, to := redistest.Key(t, "old"), redistest.Key(t, "new")
	old := schema(t, "old.yaml", "", points20)
	new := schema(t, "new.yaml", "", pts("24"))
	const players = 3000
	var mu sync.Mutex
	best := map[string]uint64{}
	submit := func(rng *rand.Rand, dual bool) error {
		id := fmt.Sprintf("p%04d", rng.IntN(players+players/10)) // a tenth are new in the window
		points := rng.Uint64N(1 << 20)
		mu.Lock()
		best[id] = max(best[id], points)
		mu.Unlock()
		if err := bestAt(ctx, c, old, key, id, points); err != nil || !dual {
			return err
		}
		return bestAt(ctx, c, new, to, id, points)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2 * players {
		if err := submit(rng, false); err != nil {
			t.Fatal(err)
		}
	}
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var writers sync.WaitGroup
	var submitted sync.Map
	for w := range 3 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			n := 0
			for {
				select {
				case <-stop:
					submitted.Store(w, n)
					return
				default:
				}
				if err := submit(rng, true); err != nil {
					t.Error(err)
				}
				n++
			}
		}()
	}
	time.Sleep(20 * time.Millisecond) // the new code is deployed: both boards are written
	first, err := migrate.Run(ctx, c, p, migrate.Options{Key: key, ToKey: to, Batch: 50})
	if err != nil && !errors.Is(err, migrate.ErrChanged) {
		t.Fatalf("the run with writers: %v", err)
	}
	close(stop)
	writers.Wait()
	total := 0
	submitted.Range(func(_, n any) bool { total += n.(int); return true })
	t.Logf("first run: %+v, %v; %d dual writes", first, err, total)
	if first.Merge != migrate.MergeBest {
		t.Errorf("merge rule %q for a board without updates; want best", first.Merge)
	}

	rerun, err := migrate.Run(ctx, c, p, migrate.Options{Key: key, ToKey: to, Batch: 50})
	if err != nil {
		t.Fatalf("rerun after the writers stopped: %+v, %v", rerun, err)
	}
	got := map[string]uint64{}
	for _, text := range readBoard(t, c, new, to) {
		id, v, _ := strings.Cut(text, " Points=")
		var points uint64
		fmt.Sscan(v, &points)
		got[id] = points
	}
	wrong := 0
	for id, want := range best {
		if got[id] != want {
			wrong++
			if wrong <= 5 {
				t.Errorf("%s: %d on the copy, best submission %d", id, got[id], want)
			}
		}
	}
	if wrong > 0 || len(got) != len(best) {
		t.Errorf("%d of %d players not at their best; the copy holds %d players", wrong, len(best), len(got))
	}
}

// TestMergeRules copies onto a KEY2 that new-layout writers wrote (with a member prefix and
// data): best keeps the entry that ranks first with its data, new keeps KEY2's, and both copy
// the ids KEY2 lacks and keep the ids only KEY2 has.
func TestMergeRules(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	old := schema(t, "old.yaml", "", points20+wins+data(name8))
	new := schema(t, "new.yaml", "", pts("21")+wins+data(str("Name", 9)))
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		merge migrate.Merge
		want  string
	}{
		{migrate.MergeBest, "cy Points=7 Wins=1,ann Points=10 Wins=1 | Name=Ann,bob Points=10 Wins=5 | Name=Bobby,dan Points=1 Wins=0 | Name=Dan"},
		{migrate.MergeNew, "ann Points=3 Wins=9 | Name=Annie,cy Points=7 Wins=1,bob Points=10 Wins=5 | Name=Bobby,dan Points=1 Wins=0 | Name=Dan"},
	} {
		key, to := redistest.Key(t, "old"+string(tc.merge)), redistest.Key(t, "new"+string(tc.merge))
		writeDataBoard(t, c, old, key, []string{"ann Points=10 Wins=1 | Name=Ann", "bob Points=10 Wins=4 | Name=Bob", "cy Points=7 Wins=1"})
		writeDataBoard(t, c, new, to, []string{"ann Points=3 Wins=9 | Name=Annie", "bob Points=10 Wins=5 | Name=Bobby", "dan Points=1 Wins=0 | Name=Dan"})
		rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: key, ToKey: to, Merge: tc.merge})
		if err != nil || rep.Copied != 1 {
			t.Fatalf("-merge %s: %+v, %v; want cy copied", tc.merge, rep, err)
		}
		if got := readDataBoard(t, c, new, to); strings.Join(sorted(got), ",") != strings.Join(sorted(strings.Split(tc.want, ",")), ",") {
			t.Errorf("-merge %s: the copy reads %q\nwant %q", tc.merge, got, tc.want)
		}
		if n := c.HLen(ctx, rankgenrt.IndexKey(to)).Val(); n != 5 { // 4 ids and the fingerprint
			t.Errorf("-merge %s: the copy's index has %d fields, want 5", tc.merge, n)
		}
	}
}

// TestMergeDefaultFollowsUpdates: a field with set updates makes KEY2's entry the one kept,
// one with only min or max updates the better one.
func TestMergeDefaultFollowsUpdates(t *testing.T) {
	c := redistest.Client(t)
	for _, tc := range []struct {
		update string
		want   migrate.Merge
	}{{"update: [max]", migrate.MergeBest}, {"update: [max, set]", migrate.MergeNew}} {
		l := schema(t, "l.yaml", "", field("Points", "uint", "bits: 20", "order: desc", tc.update))
		p, err := migrate.NewPlan(l, l, migrate.Mapping{})
		if err != nil {
			t.Fatal(err)
		}
		key := redistest.Key(t, tc.update)
		writeBoard(t, c, l, key, []string{"ann Points=1"})
		rep, err := migrate.Run(context.Background(), c, p, migrate.Options{Key: key, ToKey: key + "2"})
		if err != nil || rep.Merge != tc.want {
			t.Errorf("%s: %+v, %v; want -merge %s", tc.update, rep, err, tc.want)
		}
	}
}

// TestAddBoardRefusesHeldIDs: a board with add updates cannot be merged: a KEY2 that holds
// entries is refused before anything is written, and an id a writer puts into KEY2 during
// the copy with another entry stops it; the message names the field and says what to do.
func TestAddBoardRefusesHeldIDs(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	old := schema(t, "old.yaml", "", field("Laps", "uint", "bits: 20", "order: desc", "update: [add]"))
	new := schema(t, "new.yaml", "", field("Laps", "uint", "bits: 24", "order: desc", "update: [add]"))
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	key, to := redistest.Key(t, "old"), redistest.Key(t, "new")
	var entries []string
	for i := range 200 {
		entries = append(entries, fmt.Sprintf("id%03d Laps=%d", i, i+10))
	}
	writeBoard(t, c, old, key, entries)
	writeBoard(t, c, new, to, []string{"id000 Laps=1"})
	_, err = migrate.Run(ctx, c, p, migrate.Options{Key: key, ToKey: to, Merge: migrate.MergeBest})
	if !errors.Is(err, migrate.ErrConflict) || !strings.Contains(err.Error(), "field Laps takes add updates") ||
		!strings.Contains(err.Error(), "delete "+to+" and rerun") {
		t.Errorf("KEY2 with entries: %v; want ErrConflict naming Laps and saying to delete KEY2", err)
	}
	if got := readBoard(t, c, new, to); len(got) != 1 {
		t.Errorf("the refused copy wrote: KEY2 reads %q", got)
	}

	c.Del(ctx, to, rankgenrt.MetaKey(to))
	added := false
	_, err = migrate.Run(ctx, c, p, migrate.Options{Key: key, ToKey: to, Batch: 20, Progress: func(pr migrate.Progress) {
		// After the first batch (ZSCAN's COUNT is a hint: it may hold more or fewer than 20),
		// a dual writer's add on ids not copied yet.
		if pr.Phase == "copy" && pr.Done > 0 && pr.Done < int64(len(entries)) && !added {
			added = true
			writeBoard(t, c, new, to, notCopied(t, c, to, entries, 3))
		}
	}})
	if !errors.Is(err, migrate.ErrConflict) || !strings.Contains(err.Error(), "holds id") || !strings.Contains(err.Error(), "field Laps") {
		t.Errorf("an add during the copy: %v; want ErrConflict naming the id and Laps", err)
	}
	c.Del(ctx, to, rankgenrt.MetaKey(to))
	if rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: key, ToKey: to}); err != nil || rep.Copied != 200 {
		t.Errorf("rerun into an empty KEY2: %+v, %v; want all 200 copied", rep, err)
	}
}

// notCopied returns n of entries (as "id Laps=1") whose id KEY2 does not hold yet: the copy
// scans the source in hash order, so which ids are still to come is only known by asking.
func notCopied(t *testing.T, c redis.UniversalClient, to string, entries []string, n int) []string {
	t.Helper()
	var out []string
	for _, text := range entries {
		id := strings.Fields(text)[0]
		if err := c.ZScore(context.Background(), to, id).Err(); errors.Is(err, redis.Nil) {
			out = append(out, id+" Laps=1")
		}
		if len(out) == n {
			break
		}
	}
	if len(out) < n {
		t.Fatalf("KEY2 already holds all but %d of the source's ids after the first batch", len(out))
	}
	return out
}

// TestToKeyCopyKeepsExpiry: a copy at KEY2 expires when the source does (the sorted set, its
// side key, its data hash and the progress record), and a later expiry KEY2's writers set is
// kept.
func TestToKeyCopyKeepsExpiry(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	old := schema(t, "old.yaml", "", points20+data(name8))
	new := schema(t, "new.yaml", "", pts("21")+wins+data(name8))
	p, err := migrate.NewPlan(old, new, migrate.Mapping{Defaults: map[string]string{"Wins": "0"}})
	if err != nil {
		t.Fatal(err)
	}
	key, to := redistest.Key(t, "old"), redistest.Key(t, "new")
	writeDataBoard(t, c, old, key, []string{"ann Points=1 | Name=Ann", "bob Points=2"})
	at := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	for _, k := range []string{key, rankgenrt.MetaKey(key), rankgenrt.DataKey(key)} {
		c.PExpireAt(ctx, k, at)
	}
	later := at.Add(time.Hour)
	writeBoard(t, c, new, to, []string{"cy Points=3 Wins=1"})
	c.PExpireAt(ctx, to, later)
	if _, err := migrate.Run(ctx, c, p, migrate.Options{Key: key, ToKey: to}); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]time.Time{to: later, rankgenrt.IndexKey(to): at, rankgenrt.DataKey(to): at, rankgenrt.SideKey(to, "migrate"): at} {
		if got := c.PExpireTime(ctx, k).Val(); got != time.Duration(want.UnixMilli())*time.Millisecond {
			t.Errorf("%s expires at %v, want %v", k, time.UnixMilli(got.Milliseconds()), want)
		}
	}
}

// TestToKeyRerunAfterChangedFinishes: a write to KEY that has not reached KEY2 yet fails the
// verification with ErrChanged naming both boards (no temporary key, no "<nil>"), saying that
// a write reached KEY alone and that dual writes write KEY2 first (not asking for dual writes
// the writers may already make), and the rerun copies KEY again and finishes.
func TestToKeyRerunAfterChangedFinishes(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key, to := redistest.Key(t, "old"), redistest.Key(t, "new")
	old := schema(t, "old.yaml", "", points20)
	new := schema(t, "new.yaml", "", pts("24"))
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	writeBoard(t, c, old, key, seasonEntries(300)) // more than a listpack: ZSCAN goes in batches
	written := false
	_, err = migrate.Run(ctx, c, p, migrate.Options{Key: key, ToKey: to, Batch: 10, Progress: func(pr migrate.Progress) {
		if pr.Phase == "copy" && pr.Done >= pr.Total && !written { // after the last batch
			written = true
			writeBoard(t, c, old, key, []string{"zed Points=5"})
		}
	}})
	msg := fmt.Sprint(err)
	if !errors.Is(err, migrate.ErrChanged) || strings.Contains(msg, "<nil>") || strings.Contains(msg, "migrate:board") || !strings.Contains(msg, key) || !strings.Contains(msg, "rerun") ||
		!strings.Contains(msg, "a write reached "+key+" and not "+to) || !strings.Contains(msg, "must write "+to+" first") || strings.Contains(msg, "write both boards") {
		t.Fatalf("Run with a write to KEY alone: %v; want ErrChanged naming %s, saying a write reached it and not %s, that dual writes write %[3]s first, and to rerun", err, key, to)
	}
	rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: key, ToKey: to, Batch: 10})
	if err != nil || rep.AlreadyDone {
		t.Fatalf("rerun: %+v, %v; want it to copy again and finish", rep, err)
	}
	if got := readBoard(t, c, new, to); len(got) != 301 {
		t.Errorf("the copy holds %d entries, want the 301 of KEY", len(got))
	}
}

package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

func exampleSchema(t testing.TB, name string, edit func(string) string) *layout.Layout {
	t.Helper()
	src, err := os.ReadFile("../examples/schemas/" + name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.Parse(name, []byte(edit(string(src))))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func same(s string) string { return s }

// keyCount is the number of keys of this test (under its prefix).
func keyCount(t testing.TB, c *redis.Client) int {
	keys, err := c.Keys(context.Background(), redistest.Prefix(t)+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return len(keys)
}

func TestNarrowedFieldStopsBeforeAnyWrite(t *testing.T) {
	old := schema(t, "old.yaml", "", field("Points", "uint", "max: 1000", "order: desc"))
	new := schema(t, "new.yaml", "", field("Points", "uint", "max: 500", "order: desc"))
	c := redistest.Client(t)
	key := redistest.Key(t, "board")
	var entries []string
	for i := range 40 {
		entries = append(entries, fmt.Sprintf("p%02d Points=%d", i, 480+i)) // p21 … p39 exceed 500
	}
	writeBoard(t, c, old, key, entries)
	before := keyCount(t, c)
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = migrate.Run(context.Background(), c, p, migrate.Options{Key: key, Batch: 7, MaxMisfits: 3})
	var mis *migrate.MisfitError
	if !errors.As(err, &mis) || !errors.Is(err, migrate.ErrMisfit) {
		t.Fatalf("Run: %v; want a *MisfitError", err)
	}
	if mis.Count != 19 || len(mis.First) != 3 {
		t.Errorf("misfits: %d counted, %d listed; want 19 and 3", mis.Count, len(mis.First))
	}
	msg := err.Error()
	for _, want := range []string{"19 entries do not fit the new layout, nothing written", "Points: rankgen: Points = 5", "… and 16 more"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if after := keyCount(t, c); after != before {
		t.Errorf("%d keys before, %d after: a refused migration wrote", before, after)
	}
	if got := readBoard(t, c, old, key); len(got) != 40 {
		t.Errorf("the source has %d entries, want 40 untouched", len(got))
	}
}

// TestGeneratedBoardReadsMigration migrates a board of an older season schema (Wins in 12
// bits, decimal member text) to examples/schemas/season.yaml, and reads it with the
// generated season package.
func TestGeneratedBoardReadsMigration(t *testing.T) {
	old := exampleSchema(t, "season.yaml", func(s string) string {
		return strings.Replace(s, "    bits: 16\n", "    digits: 4\n", 1)
	})
	new := exampleSchema(t, "season.yaml", same)
	if new.Fingerprint != season.Fingerprint {
		t.Fatalf("season.yaml's fingerprint %s is not the generated package's %s: regenerate", new.Fingerprint, season.Fingerprint)
	}
	c := redistest.Client(t)
	key := redistest.Key(t, "{season}")
	writeBoard(t, c, old, key, []string{
		"ann Points=1099511627775 Tier=platinum Wins=9999 ReachedAt=2026-05-06T07:08:09.123Z",
		"bob Points=0 Tier=bronze Wins=0 ReachedAt=2026-01-01T00:00:00Z",
	})
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.Run(context.Background(), c, p, migrate.Options{Key: key}); err != nil {
		t.Fatal(err)
	}
	b := season.NewBoard(c, key)
	e, err := b.Get(context.Background(), "ann")
	want := season.Entry{UserID: "ann", Points: 1099511627775, Tier: season.TierPlatinum, Wins: 9999,
		ReachedAt: time.Date(2026, 5, 6, 7, 8, 9, 123e6, time.UTC)}
	if err != nil || e != want {
		t.Errorf("Get(ann) = %+v, %v; want %+v", e, err, want)
	}
	if _, err := b.AddWins(context.Background(), "bob", 1); err != nil {
		t.Errorf("a new-layout write after the migration: %v", err)
	}
}

// TestOldWritersRefusedAfterSwitch writes an arena board with the generated arena package,
// migrates it to a wider Points field, and checks that the arena package's writes and reads
// are refused by the fingerprint.
func TestOldWritersRefusedAfterSwitch(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key := redistest.Key(t, "arena")
	old := exampleSchema(t, "arena.yaml", same)
	new := exampleSchema(t, "arena.yaml", func(s string) string { return strings.Replace(s, "bits: 20", "bits: 21", 1) })
	b := arena.NewBoard(c, key)
	if _, err := b.SetPoints(ctx, "ann", 700000); err != nil {
		t.Fatal(err)
	}
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.Run(ctx, c, p, migrate.Options{Key: key}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SetPoints(ctx, "bob", 1); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("old-layout write after the switch: %v; want ErrLayoutMismatch", err)
	}
	if _, err := b.Get(ctx, "ann"); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("old-layout read after the switch: %v; want ErrLayoutMismatch", err)
	}
	if got := readBoard(t, c, new, key); len(got) != 1 || !strings.HasPrefix(got[0], "ann Points=700000 ") {
		t.Errorf("the board reads %q", got)
	}
}

func TestToKeyLeavesBothAndRerunIsDone(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key, to := redistest.Key(t, "old"), redistest.Key(t, "new")
	old := schema(t, "old.yaml", "", points20)
	new := schema(t, "new.yaml", "", points20+paid)
	writeBoard(t, c, old, key, []string{"ann Points=1", "bob Points=2"})
	c.PExpire(ctx, key, time.Hour)
	p, err := migrate.NewPlan(old, new, migrate.Mapping{Defaults: map[string]string{"Paid": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	for run := range 2 {
		rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: key, ToKey: to})
		if err != nil || rep.Switched || rep.AlreadyDone != (run == 1) {
			t.Fatalf("run %d: %+v, %v; want not switched, already done on the rerun", run, rep, err)
		}
	}
	if got := readBoard(t, c, old, key); len(got) != 2 {
		t.Errorf("the source reads %q", got)
	}
	if got := readBoard(t, c, new, to); strings.Join(got, ",") != "ann Points=1 Paid=true,bob Points=2 Paid=true" {
		t.Errorf("the copy reads %q", got)
	}
}

func TestRerunAfterSwitchIsDoneAndTTLCarriesOver(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key := redistest.Key(t, "board")
	old := schema(t, "old.yaml", "", points20)
	new := schema(t, "new.yaml", "", points20+wins)
	writeBoard(t, c, old, key, []string{"ann Points=1", "bob Points=2"})
	c.PExpire(ctx, key, time.Hour)
	p, err := migrate.NewPlan(old, new, migrate.Mapping{Defaults: map[string]string{"Wins": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.Run(ctx, c, p, migrate.Options{Key: key}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{key, rankgenrt.IndexKey(key), rankgenrt.MetaKey(key)} {
		if ttl := c.PTTL(ctx, k).Val(); ttl < 59*time.Minute {
			t.Errorf("%s: time to live %v after the switch; want the source's hour", k, ttl)
		}
	}
	rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: key})
	if err != nil || !rep.AlreadyDone || rep.Entries != 2 {
		t.Errorf("rerun: %+v, %v; want already done with 2 entries", rep, err)
	}
	assertClaims(t, c, key, new.Fingerprint)
}

// The interruption test runs a migration in a child process (this test binary), kills it
// with SIGKILL in the middle of the copy, then reruns it here.

const childEnv = "RANKGEN_MIGRATE_CHILD"

// interruptionLayouts re-encodes the ranking and the data: a longer Name and a new Car.
func interruptionLayouts(t testing.TB) (*layout.Layout, *layout.Layout, migrate.Mapping) {
	old := schema(t, "old.yaml", "", points20+paid+data(str("Name", 16)))
	new := schema(t, "new.yaml", "separator: \"|\"", pts("22")+field("Paid", "bool", "order: desc", "in: member")+tier+data(str("Name", 24), car))
	return old, new, migrate.Mapping{Defaults: map[string]string{"Tier": "gold", "Car": "formula"}}
}

// interruptionEntry is entry i of the interruption board, with the old layout and the new:
// every fourth has no data.
func interruptionEntry(i int) (old, new string) {
	old = fmt.Sprintf("id%07d Points=%d Paid=%t", i, i%1000000, i%3 == 0)
	new = old + " Tier=gold"
	if i%4 != 0 {
		old += fmt.Sprintf(" | Name=driver-%d", i)
		new += fmt.Sprintf(" | Name=driver-%d Car=formula", i)
	}
	return old, new
}

func TestInterruptionChild(t *testing.T) {
	arg := os.Getenv(childEnv)
	if arg == "" {
		t.Skip("run by TestKilledMidMigrationResumes in a child process")
	}
	addr, key, _ := strings.Cut(arg, " ")
	c := redis.NewClient(&redis.Options{Addr: addr})
	old, new, m := interruptionLayouts(t)
	p, err := migrate.NewPlan(old, new, m)
	if err != nil {
		t.Fatal(err)
	}
	_, err = migrate.Run(context.Background(), c, p, migrate.Options{Key: key, Batch: 20, Progress: func(migrate.Progress) {
		time.Sleep(2 * time.Millisecond) // slow enough to be killed mid-copy
	}})
	t.Fatalf("the child finished (%v) before it was killed", err)
}

func TestKilledMidMigrationResumes(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key := redistest.Key(t, "board")
	old, new, m := interruptionLayouts(t)
	const n = 5000
	entries := make([]string, n)
	want := make([]string, n)
	for i := range entries {
		entries[i], want[i] = interruptionEntry(i)
	}
	writeDataBoard(t, c, old, key, entries)
	prog := rankgenrt.SideKey(rankgenrt.SideKey(key, "migrate:board"), "migrate")

	cmd := exec.Command(os.Args[0], "-test.run=^TestInterruptionChild$")
	cmd.Env = append(os.Environ(), childEnv+"="+c.Options().Addr+" "+key, "REDIS_URL=redis://"+c.Options().Addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for done := 0; done < 1000; done, _ = strconv.Atoi(c.HGet(ctx, prog, "done").Val()) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the child copied nothing in 30 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	done, _ := strconv.Atoi(c.HGet(ctx, prog, "done").Val())
	if done >= n {
		t.Fatalf("the child had copied all %d entries when killed", done)
	}
	if got := readDataBoard(t, c, old, key); strings.Join(got, "\n") != strings.Join(sorted(entries), "\n") {
		t.Fatalf("the source reads %d entries after the kill; want the %d written, untouched", len(got), n)
	}

	p, err := migrate.NewPlan(old, new, m)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: key})
	if err != nil || !rep.Resumed || !rep.Switched || rep.Copied+rep.Kept < n-int64(done) {
		t.Fatalf("rerun: %+v, %v; want resumed and switched", rep, err)
	}
	t.Logf("killed after %d of %d entries; the rerun copied %d, kept %d", done, n, rep.Copied, rep.Kept)
	if got := readDataBoard(t, c, new, key); strings.Join(got, "\n") != strings.Join(sorted(want), "\n") {
		t.Errorf("after the rerun the board reads %d entries, not the %d mapped", len(got), n)
	}
	assertClaims(t, c, key, new.Fingerprint)
}

// TestClusterKeepsOneSlot migrates boards on a Redis Cluster, with and without a hash tag in
// their key, between a bare-id layout and a member-prefix one, their data rewritten: every
// script's keys share the board's slot (a CROSSSLOT error would fail it).
func TestClusterKeepsOneSlot(t *testing.T) {
	ctx := context.Background()
	c := redistest.StartCluster(t)
	bare := schema(t, "bare.yaml", "", points20+data(name8))
	prefixed := schema(t, "prefixed.yaml", "", points20+wins+data(str("Name", 9)))
	for _, name := range []string{"board", "{tag}board"} {
		key := redistest.Key(t, name)
		writeDataBoard(t, c, bare, key, []string{"ann Points=1 | Name=Ann", "bob Points=2"})
		p, err := migrate.NewPlan(bare, prefixed, migrate.Mapping{Defaults: map[string]string{"Wins": "4"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := migrate.Run(ctx, c, p, migrate.Options{Key: key}); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		back, err := migrate.NewPlan(prefixed, bare, migrate.Mapping{Drops: []string{"Wins"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := migrate.Run(ctx, c, back, migrate.Options{Key: key}); err != nil {
			t.Fatalf("%s, back: %v", key, err)
		}
		if got := readDataBoard(t, c, bare, key); strings.Join(got, ",") != "ann Points=1 | Name=Ann,bob Points=2" {
			t.Errorf("%s reads %q after the round trip", key, got)
		}
		assertClaims(t, c, key, bare.Fingerprint)
	}
}

func TestEmptyBoard(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key := redistest.Key(t, "empty")
	old := schema(t, "old.yaml", "", points20)
	new := schema(t, "new.yaml", "", points20+wins)
	p, err := migrate.NewPlan(old, new, migrate.Mapping{Defaults: map[string]string{"Wins": "0"}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: key})
	if err != nil || !rep.Switched || rep.Entries != 0 {
		t.Fatalf("Run: %+v, %v; want an empty board switched", rep, err)
	}
	assertClaims(t, c, key, new.Fingerprint)
}

// TestRerunWithOtherOptions stops a migration mid-copy, then reruns it with another default:
// in place, the copy starts over and every entry gets the new default; at -to-key, the
// half-built copy of another plan is refused (ErrConflict).
func TestRerunWithOtherOptions(t *testing.T) {
	c := redistest.Client(t)
	old := schema(t, "old.yaml", "", points20)
	new := schema(t, "new.yaml", "", points20+paid)
	plan := func(def string) *migrate.Plan {
		p, err := migrate.NewPlan(old, new, migrate.Mapping{Defaults: map[string]string{"Paid": def}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, toKey := range []bool{false, true} {
		key := redistest.Key(t, fmt.Sprint("board", toKey))
		o := migrate.Options{Key: key, Batch: 10}
		if toKey {
			o.ToKey = key + "new"
		}
		var entries, want []string
		for i := range 300 {
			entries = append(entries, fmt.Sprintf("id%03d Points=%d", i, i))
			want = append(want, fmt.Sprintf("id%03d Points=%d Paid=false", i, i))
		}
		writeBoard(t, c, old, key, entries)
		ctx, stop := context.WithCancel(context.Background())
		o.Progress = func(p migrate.Progress) {
			if p.Phase == "copy" {
				stop()
			}
		}
		if _, err := migrate.Run(ctx, c, plan("true"), o); !errors.Is(err, context.Canceled) {
			t.Fatalf("to-key %t: the stopped run: %v", toKey, err)
		}
		o.Progress = nil
		rep, err := migrate.Run(context.Background(), c, plan("false"), o)
		if toKey {
			if !errors.Is(err, migrate.ErrConflict) {
				t.Errorf("-to-key rerun with another plan: %+v, %v; want ErrConflict", rep, err)
			}
			continue
		}
		if err != nil || rep.Resumed || rep.Copied != 300 {
			t.Fatalf("rerun: %+v, %v; want a fresh copy of 300 entries", rep, err)
		}
		if got := readBoard(t, c, new, key); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("after the rerun the board reads %d entries, not the %d with the new default", len(got), len(want))
		}
	}
}

func TestUndecodableMemberStops(t *testing.T) {
	c := redistest.Client(t)
	key := redistest.Key(t, "board")
	old := schema(t, "old.yaml", "", points20+wins)
	writeBoard(t, c, old, key, []string{"ann Points=1 Wins=2"})
	c.ZAdd(context.Background(), key, redis.Z{Score: 5, Member: "not\x00a member"})
	p, err := migrate.NewPlan(old, schema(t, "new.yaml", "", pts("21")+wins), migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = migrate.Run(context.Background(), c, p, migrate.Options{Key: key})
	var mis *migrate.MisfitError
	if !errors.As(err, &mis) || mis.Count != 1 || mis.First[0].ID != "" ||
		!strings.Contains(err.Error(), `member "not\x00a member" (score 5): the old layout cannot decode it`) {
		t.Errorf("Run: %v; want the undecodable member listed, quoted", err)
	}
}

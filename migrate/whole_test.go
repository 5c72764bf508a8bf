package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

const daily = "season: {every: day, zone: UTC, keep: 3}"

// seasonIDs are the ids of the days from now back n days, newest first.
func seasonIDs(l *layout.Layout, now time.Time, n int) []int64 {
	var ids []int64
	for s, i := l.Season.Calendar.At(now), 0; i < n; s, i = l.Season.Calendar.Prev(s), i+1 {
		ids = append(ids, s.ID)
	}
	return ids
}

func seasonEntries(n int) []string {
	entries := make([]string, n)
	for i := range entries {
		entries[i] = fmt.Sprintf("id%03d Points=%d", i, i)
	}
	return entries
}

// TestRunBoardSeasons migrates a daily board with keep: 3 in place from its base key: the
// four live days are its parts, the absent one is skipped and reported, the day before them
// is left alone. The run is stopped in the second day's copy and resumed by running it again.
func TestRunBoardSeasons(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	base := redistest.Key(t, "daily")
	old := schema(t, "old.yaml", daily, points20)
	new := schema(t, "new.yaml", daily, pts("22"))
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	ids := seasonIDs(old, now, 5) // 10th (today) … 6th
	for i, id := range ids {
		if i != 2 { // the 8th has no board
			writeBoard(t, c, old, fmt.Sprintf("%s:%d", base, id), seasonEntries(40))
		}
	}

	stopCtx, stop := context.WithCancel(ctx)
	var events []string
	o := migrate.Options{Key: base, Now: now, Batch: 10, Progress: func(pr migrate.Progress) {
		if pr.Phase == "board" || pr.Phase == "absent" {
			events = append(events, fmt.Sprintf("%s %s (%d of %d) %d", pr.Phase, pr.Part, pr.Index, pr.Parts, pr.Total))
		}
		if pr.Index == 2 && pr.Phase == "copy" {
			stop()
		}
	}}
	if _, err := migrate.RunBoard(stopCtx, c, p, o); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), fmt.Sprintf("season %d (2 of 4)", ids[1])) {
		t.Fatalf("the stopped run: %v; want it stopped in the second season", err)
	}
	wantEvents := []string{fmt.Sprintf("board season %d (1 of 4) 40", ids[0]), fmt.Sprintf("board season %d (2 of 4) 40", ids[1])}
	if strings.Join(events, "\n") != strings.Join(wantEvents, "\n") {
		t.Errorf("progress of the stopped run:\n%s\nwant\n%s", strings.Join(events, "\n"), strings.Join(wantEvents, "\n"))
	}

	o.Progress = nil
	rep, err := migrate.RunBoard(ctx, c, p, o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rep.Parts {
		got = append(got, fmt.Sprintf("%s done=%t resumed=%t switched=%t", r.Part, r.AlreadyDone, r.Resumed, r.Switched))
	}
	want := []string{
		fmt.Sprintf("season %d done=true resumed=false switched=false", ids[0]),
		fmt.Sprintf("season %d done=false resumed=true switched=true", ids[1]),
		fmt.Sprintf("season %d done=false resumed=false switched=true", ids[3]),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(rep.Absent) != 1 || rep.Absent[0].Season != ids[2] {
		t.Errorf("the rerun migrated\n%s\nskipped %v; want\n%s\nand season %d skipped", strings.Join(got, "\n"), rep.Absent, strings.Join(want, "\n"), ids[2])
	}
	for i, id := range ids {
		key := fmt.Sprintf("%s:%d", base, id)
		switch i {
		case 2:
			if n := c.Exists(ctx, key, rankgenrt.MetaKey(key)).Val(); n != 0 {
				t.Errorf("the absent season %d has %d keys after the run", id, n)
			}
		case 4:
			assertClaims(t, c, key, old.Fingerprint) // past keep: not live, left alone
		default:
			assertClaims(t, c, key, new.Fingerprint)
			if got := readBoard(t, c, new, key); len(got) != 40 {
				t.Errorf("season %d reads %d entries with the new layout, want 40", id, len(got))
			}
		}
	}
}

// shardedBoard writes entries into the shards of a sharded board, each on the shard its id
// hashes to.
func shardedBoard(t testing.TB, c redis.UniversalClient, l *layout.Layout, key string, shards int, entries []string) {
	t.Helper()
	keys, err := rankgenrt.ShardKeys(key, shards)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		id, _, _ := strings.Cut(e, " ")
		writeBoard(t, c, l, keys[rankgenrt.ShardOf(id, shards)], []string{e})
	}
}

// readSharded reads every shard of a sharded board, in shard order.
func readSharded(t testing.TB, c redis.UniversalClient, l *layout.Layout, key string, shards int) []string {
	t.Helper()
	keys, err := rankgenrt.ShardKeys(key, shards)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, k := range keys {
		out = append(out, readBoard(t, c, l, k)...)
	}
	return sorted(out)
}

// TestRunBoardShards migrates each shard of a sharded board to the same shard of KEY2.
func TestRunBoardShards(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key, to := redistest.Key(t, "board"), redistest.Key(t, "copy")
	old := schema(t, "old.yaml", "", points20)
	new := schema(t, "new.yaml", "", pts("22"))
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	entries := seasonEntries(60)
	shardedBoard(t, c, old, key, 4, entries)
	rep, err := migrate.RunBoard(ctx, c, p, migrate.Options{Key: key, ToKey: to, Shards: 4})
	if err != nil || len(rep.Parts) != 4 || len(rep.Absent) != 0 {
		t.Fatalf("RunBoard: %+v, %v; want 4 shards migrated", rep, err)
	}
	if got := readSharded(t, c, new, to, 4); strings.Join(got, ",") != strings.Join(sorted(entries), ",") {
		t.Errorf("the copy's shards read %q", got)
	}
	if _, err := migrate.RunBoard(ctx, c, p, migrate.Options{Key: key + "{x}", Shards: 4}); !errors.Is(err, rankgenrt.ErrBadKey) {
		t.Errorf("a sharded board's key with a brace: %v; want ErrBadKey", err)
	}
}

// TestClusterSeasonShards migrates a periodic sharded board on a Redis Cluster to KEY2: each
// season's shards land on their own slots, and each copy keeps its source's expiry.
func TestClusterSeasonShards(t *testing.T) {
	ctx := context.Background()
	c := redistest.StartCluster(t)
	base, to := redistest.Key(t, "daily"), redistest.Key(t, "copy")
	old := schema(t, "old.yaml", daily, points20)
	new := schema(t, "new.yaml", daily, pts("22"))
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ids := seasonIDs(old, now, 2)
	entries := seasonEntries(30)
	for _, id := range ids {
		shardedBoard(t, c, old, fmt.Sprintf("%s:%d", base, id), 3, entries)
	}
	expiry := now.Add(48 * time.Hour).Truncate(time.Millisecond)
	first, _ := rankgenrt.ShardKeys(fmt.Sprintf("%s:%d", base, ids[0]), 3)
	c.PExpireAt(ctx, first[0], expiry)
	rep, err := migrate.RunBoard(ctx, c, p, migrate.Options{Key: base, ToKey: to, Shards: 3, Now: now})
	if err != nil || len(rep.Parts) != 6 || len(rep.Absent) != 6 {
		t.Fatalf("RunBoard: %d parts migrated, %d absent, %v; want 2 seasons × 3 shards migrated, 2 × 3 absent", len(rep.Parts), len(rep.Absent), err)
	}
	for _, id := range ids {
		if got := readSharded(t, c, new, fmt.Sprintf("%s:%d", to, id), 3); strings.Join(got, ",") != strings.Join(sorted(entries), ",") {
			t.Errorf("season %d: the copy's shards read %q", id, got)
		}
	}
	copyFirst, _ := rankgenrt.ShardKeys(fmt.Sprintf("%s:%d", to, ids[0]), 3)
	if got := c.PExpireTime(ctx, copyFirst[0]).Val(); got != time.Duration(expiry.UnixMilli())*time.Millisecond {
		t.Errorf("the first shard's copy expires at %v, want %v", got, expiry)
	}
}

// TestRunBoardShardsInPlace migrates a sharded board's shards in place, together: a run in
// which one shard fails (an entry the new layout cannot hold) switches none, closes no fence
// and names that shard; once the entry is gone a rerun switches them all.
func TestRunBoardShardsInPlace(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key := redistest.Key(t, "board")
	old := schema(t, "old.yaml", "", points20)
	new := schema(t, "new.yaml", "", pts("8"))
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	entries := seasonEntries(60)
	shardedBoard(t, c, old, key, 4, append(entries, "big Points=1000"))
	keys, err := rankgenrt.ShardKeys(key, 4)
	if err != nil {
		t.Fatal(err)
	}
	bigShard := rankgenrt.ShardOf("big", 4)

	_, err = migrate.RunBoard(ctx, c, p, migrate.Options{Key: key, Shards: 4})
	if !errors.Is(err, migrate.ErrMisfit) || !strings.Contains(err.Error(), fmt.Sprintf("shard %d of 4", bigShard)) {
		t.Fatalf("RunBoard over a shard with a misfit: %v; want ErrMisfit naming shard %d", err, bigShard)
	}
	for _, k := range keys {
		if fp := c.Get(ctx, rankgenrt.MetaKey(k)).Val(); fp != old.Fingerprint {
			t.Errorf("%s claims %q after the failed run; want the old layout's %s", k, fp, old.Fingerprint)
		}
		// A fence left open logs writes and refuses none; it lapses by itself, or a rerun
		// resumes under it.
		if closed := c.HExists(ctx, rankgenrt.FenceKey(k), "closed").Val(); closed {
			t.Errorf("%s: the fence stands closed after the failed run", k)
		}
	}

	if err := c.ZRem(ctx, keys[bigShard], "big").Err(); err != nil {
		t.Fatal(err)
	}
	rep, err := migrate.RunBoard(ctx, c, p, migrate.Options{Key: key, Shards: 4})
	if err != nil || len(rep.Parts) != 4 {
		t.Fatalf("the rerun: %+v, %v; want 4 shards switched", rep, err)
	}
	for _, k := range keys {
		assertClaims(t, c, k, new.Fingerprint)
	}
	if got := readSharded(t, c, new, key, 4); strings.Join(got, ",") != strings.Join(sorted(entries), ",") {
		t.Errorf("the shards read %q", got)
	}
}

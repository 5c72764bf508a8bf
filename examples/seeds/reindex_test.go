package seeds_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

func interpretedID(l *layout.Layout) func(float64, string) (string, error) {
	return func(score float64, member string) (string, error) {
		e, err := l.Decode(score, member)
		return e.ID, err
	}
}

// seed000Board writes n entries the seed's way (EncodeEntry, ZADD) and returns what it wrote.
func seed000Board(t testing.TB, c *redis.Client, key string, n int) map[string]string {
	t.Helper()
	want := map[string]string{}
	var zs []redis.Z
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("user:%d", i) // ":" in ids, which the seed forbids and rankgen allows
		s, m, err := seed000EncodeEntry(int64(i*7%50), 1721059200+int64(i), id)
		if err != nil {
			t.Fatal(err)
		}
		want[id] = m
		zs = append(zs, redis.Z{Score: s, Member: m})
	}
	if err := c.ZAdd(context.Background(), key, zs...).Err(); err != nil {
		t.Fatal(err)
	}
	return want
}

// Reindex adopts a board seed 000 wrote: the index maps every id to its member and holds the
// fingerprint; a rerun changes nothing; removed members and wrong entries are repaired.
func TestReindexSeed000Board(t *testing.T) {
	c := redistest.Client(t)
	ctx := context.Background()
	l := load(t, "seed000_member")
	key := redistest.Key(t, "rank")
	index := rankgenrt.IndexKey(key)
	want := seed000Board(t, c, key, 2500) // more than one page

	rep, err := rankgenrt.Reindex(ctx, c, key, l.Fingerprint, interpretedID(l))
	if err != nil || rep.Members != 2500 || rep.Written != 2500 || rep.Unchanged != 0 || rep.Removed != 0 {
		t.Fatalf("first Reindex = %+v, %v", rep, err)
	}
	got, err := c.HGetAll(ctx, index).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2501 || got[""] != l.Fingerprint {
		t.Fatalf("index has %d fields, fingerprint %q", len(got), got[""])
	}
	for id, m := range want {
		if got[id] != m {
			t.Fatalf("index[%q] = %q, want %q", id, got[id], m)
		}
	}

	rep, err = rankgenrt.Reindex(ctx, c, key, l.Fingerprint, interpretedID(l))
	if err != nil || rep.Written != 0 || rep.Unchanged != 2500 {
		t.Fatalf("rerun = %+v, %v", rep, err)
	}

	// A member removed from the set, an index entry pointing at a member that is gone.
	c.ZRem(ctx, key, want["user:1"])
	c.HSet(ctx, index, "user:2", "0000000000:user:2")
	rep, err = rankgenrt.Reindex(ctx, c, key, l.Fingerprint, interpretedID(l))
	if err != nil || rep.Written != 1 || rep.Removed != 1 || rep.Unchanged != 2498 {
		t.Fatalf("repair = %+v, %v", rep, err)
	}
	if n := c.HLen(ctx, index).Val(); n != 2500 {
		t.Fatalf("index has %d fields after the repair, want 2500", n)
	}
	if m := c.HGet(ctx, index, "user:2").Val(); m != want["user:2"] {
		t.Fatalf("index[user:2] = %q after the repair", m)
	}

	// Another layout's index is refused.
	other := load(t, "seed002_keysort")
	if _, err := rankgenrt.Reindex(ctx, c, key, other.Fingerprint, interpretedID(l)); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Fatalf("Reindex with another fingerprint = %v, want ErrLayoutMismatch", err)
	}
}

// The seed's stale ZREM-then-ZADD leaves two members for one id: Reindex refuses the board,
// names the id and its members, and writes nothing. A member the layout cannot have written
// is refused the same way.
func TestReindexRefusesDuplicatesAndBadMembers(t *testing.T) {
	c := redistest.Client(t)
	ctx := context.Background()
	l := load(t, "seed000_member")
	key := redistest.Key(t, "rank")
	seed000Board(t, c, key, 10)
	s1, m1, _ := seed000EncodeEntry(99, 1721059300, "user:3") // a second member for user:3
	c.ZAdd(ctx, key, redis.Z{Score: s1, Member: m1})

	rep, err := rankgenrt.Reindex(ctx, c, key, l.Fingerprint, interpretedID(l))
	if !errors.Is(err, rankgenrt.ErrDuplicateID) || len(rep.Duplicates) != 1 || len(rep.Duplicates["user:3"]) != 2 {
		t.Fatalf("Reindex = %+v, %v; want ErrDuplicateID for user:3", rep, err)
	}
	if n := c.Exists(ctx, rankgenrt.IndexKey(key)).Val(); n != 0 {
		t.Fatal("Reindex wrote an index despite the duplicate")
	}
	c.ZRem(ctx, key, m1)
	c.ZAdd(ctx, key, redis.Z{Score: 1.5, Member: "junk"})
	rep, err = rankgenrt.Reindex(ctx, c, key, l.Fingerprint, interpretedID(l))
	if !errors.Is(err, rankgenrt.ErrBadScore) && !errors.Is(err, rankgenrt.ErrBadMember) || len(rep.Bad) != 1 {
		t.Fatalf("Reindex = %+v, %v; want the bad member refused", rep, err)
	}
	if n := c.Exists(ctx, rankgenrt.IndexKey(key)).Val(); n != 0 {
		t.Fatal("Reindex wrote an index despite the bad member")
	}
	c.ZRem(ctx, key, "junk")
	if rep, err := rankgenrt.Reindex(ctx, c, key, l.Fingerprint, interpretedID(l)); err != nil || rep.Written != 10 {
		t.Fatalf("Reindex after the cleanup = %+v, %v", rep, err)
	}
}

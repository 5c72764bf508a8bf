package boardtest

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestShardedTopSkewed: when one shard holds every one of the best entries, far more than its
// share, a ShardedBoard's Top and Page still equal a one-key Board's holding the same entries
// (that shard reads on in a second round), on a layout without data (plain ZREVRANGE) and one
// with (the page script).
func TestShardedTopSkewed(t *testing.T) {
	const shards, entries = 4, 120
	c := redistest.Client(t)
	// Ids of shard 0 get the best scores, all others the worst.
	var ids []string
	for i := 0; len(ids) < entries; i++ {
		ids = append(ids, "p"+strconv.Itoa(i))
	}
	score := func(i int, id string) uint32 {
		if rankgenrt.ShardOf(id, shards) == 0 {
			return uint32(1000 + i)
		}
		return uint32(i % 7)
	}
	t.Run("seed002decimal", func(t *testing.T) {
		sb, err := seed002decimal.NewShardedBoard(c, redistest.Key(t, "sharded"), shards)
		if err != nil {
			t.Fatal(err)
		}
		one := seed002decimal.NewBoard(c, redistest.Key(t, "one"))
		var es []seed002decimal.Entry
		for i, id := range ids {
			es = append(es, seed002decimal.Entry{Player: id, Points: score(i, id), ReachedAt: reachedAt(i)})
		}
		if _, err := sb.SetMany(ctx, es); err != nil {
			t.Fatal(err)
		}
		if _, err := one.SetMany(ctx, es); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int64{1, 10, 40, 60, 119, 200} {
			got, err1 := sb.Top(ctx, n)
			want, err2 := one.Top(ctx, n)
			if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("Top(%d): sharded %v, %v; one key %v, %v", n, got, err1, want, err2)
			}
		}
		got, err1 := sb.Page(ctx, 30, 20)
		want, err2 := one.Page(ctx, 30, 20)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Page(30, 20): sharded %v, %v; one key %v, %v", got, err1, want, err2)
		}
	})
	t.Run("laps", func(t *testing.T) {
		sb, err := laps.NewShardedBoard(c, redistest.Key(t, "sharded"), shards)
		if err != nil {
			t.Fatal(err)
		}
		one := laps.NewBoard(c, redistest.Key(t, "one"))
		var es []laps.Entry
		for i, id := range ids {
			es = append(es, laps.Entry{Driver: id, Laps: score(i, id), Data: laps.Data{Name: "n" + id}})
		}
		if _, err := sb.SetMany(ctx, es); err != nil {
			t.Fatal(err)
		}
		if _, err := one.SetMany(ctx, es); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int64{10, 40, 60, 200} {
			got, err1 := sb.Top(ctx, n)
			want, err2 := one.Top(ctx, n)
			if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("Top(%d): sharded %v, %v; one key %v, %v", n, got, err1, want, err2)
			}
		}
	})
}

package runtime

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// The shard of an id is part of the stored format: these vectors must never change (docs/sharded.md,
// "Sharded boards", lists the same ones).
func TestShardOfVectors(t *testing.T) {
	for _, v := range []struct {
		id        string
		hash      uint64
		of6, of64 int
	}{
		{"", 0xcbf29ce484222325, 5, 37},
		{"0", 0xaf63ad4c86019caf, 5, 47},
		{"1", 0xaf63ac4c86019afc, 4, 60},
		{"42", 0x07ee7e07b4b19223, 1, 35},
		{"alice", 0x508b2abb65a03907, 5, 7},
		{"18446744073709551615", 0xedf2a76b38fc3c54, 2, 20},
	} {
		h := fnv.New64a()
		h.Write([]byte(v.id))
		if h.Sum64() != v.hash {
			t.Errorf("FNV-1a 64 of %q = %#x, want %#x", v.id, h.Sum64(), v.hash)
		}
		if got := ShardOf(v.id, 6); got != v.of6 || int(v.hash%6) != v.of6 {
			t.Errorf("ShardOf(%q, 6) = %d, want %d", v.id, got, v.of6)
		}
		if got := ShardOf(v.id, 64); got != v.of64 || int(v.hash%64) != v.of64 {
			t.Errorf("ShardOf(%q, 64) = %d, want %d", v.id, got, v.of64)
		}
	}
}

func TestSlot(t *testing.T) {
	// Values from the Redis Cluster specification and CLUSTER KEYSLOT.
	for key, want := range map[string]int{"foo": 12182, "bar": 5061, "123456789": 12739, "{user1000}.following": 3443} {
		if got := Slot(key); got != want {
			t.Errorf("Slot(%q) = %d, want %d", key, got, want)
		}
	}
}

func TestShardKeys(t *testing.T) {
	keys, err := ShardKeys("lb", 6)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lb{lb:6:0:12}", "lb{lb:6:1:0}", "lb{lb:6:2:20}", "lb{lb:6:3:0}", "lb{lb:6:4:32}", "lb{lb:6:5:23}"}
	if !slices.Equal(keys, want) {
		t.Errorf("ShardKeys(lb, 6) = %q, want %q", keys, want)
	}
	for _, shards := range []int{1, 2, 3, 6, 7, 64, MaxShards} {
		keys, err := ShardKeys("game:board", shards)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			part := ClusterSlots / shards
			if s := Slot(k); s < i*ClusterSlots/shards || s >= (i+1)*ClusterSlots/shards {
				t.Errorf("shards=%d: key %q has slot %d, outside part %d (≈%d slots from %d)", shards, k, s, i, part, i*ClusterSlots/shards)
			}
			if MetaKey(k) != k+":meta" || Slot(MetaKey(k)) != Slot(k) {
				t.Errorf("side key %q of shard %q leaves its slot", MetaKey(k), k)
			}
		}
	}
	for _, bad := range []int{0, -1, MaxShards + 1} {
		if _, err := ShardKeys("lb", bad); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("ShardKeys(lb, %d): %v, want ErrOutOfRange", bad, err)
		}
	}
	for _, bad := range []string{"a{b", "lb}", "{x}"} {
		if _, err := ShardKeys(bad, 2); !errors.Is(err, ErrBadKey) {
			t.Errorf("ShardKeys(%q): %v, want ErrBadKey", bad, err)
		}
	}
}

func TestMergeSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		lists := make([][]int, rng.IntN(6))
		var all []int
		for i := range lists {
			for range rng.IntN(12) {
				lists[i] = append(lists[i], rng.IntN(20))
			}
			slices.SortFunc(lists[i], func(a, b int) int { return cmp.Compare(b, a) }) // descending
			all = append(all, lists[i]...)
		}
		slices.SortFunc(all, func(a, b int) int { return cmp.Compare(b, a) })
		n := rng.IntN(len(all)+3) - 1
		got := MergeSorted(lists, int64(n), func(a, b int) int { return cmp.Compare(b, a) })
		want := all
		if n >= 0 && n < len(all) {
			want = all[:n]
		}
		if !slices.Equal(got, want) {
			t.Fatalf("MergeSorted(%v, %d) = %v, want %v", lists, n, got, want)
		}
		// Shares: taking each list's share from its head and merging gives the same prefix.
		shares := Shares(lists, int64(n), func(a, b int) int { return cmp.Compare(b, a) })
		var heads [][]int
		for i, l := range lists {
			heads = append(heads, l[:shares[i]])
		}
		if again := MergeSorted(heads, -1, func(a, b int) int { return cmp.Compare(b, a) }); !slices.Equal(again, want) {
			t.Fatalf("Shares(%v, %d) = %v: their merge %v, want %v", lists, n, shares, again, want)
		}
	}
}

func TestGroupAndScatter(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e", "f", "g"}
	groups := GroupByShard(len(ids), 3, func(i int) string { return ids[i] })
	seen := 0
	for s, g := range groups {
		for _, i := range g {
			if ShardOf(ids[i], 3) != s {
				t.Errorf("%q grouped on shard %d, belongs to %d", ids[i], s, ShardOf(ids[i], 3))
			}
			seen++
		}
	}
	if seen != len(ids) {
		t.Fatalf("groups hold %d items, want %d", seen, len(ids))
	}
	called := make([]int, 3)
	err := Scatter(context.Background(), groups, func(_ context.Context, s int, items []int) error {
		called[s] = len(items)
		if s == 1 {
			return ErrNotFound
		}
		return nil
	})
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("Scatter: %v, want the failing shard's ErrNotFound", err)
	}
	for s, g := range groups {
		if called[s] != len(g) {
			t.Errorf("shard %d called with %d items, want %d", s, called[s], len(g))
		}
	}
}

// A pipeline cannot load a missing library by itself: Pipe resends the calls that found it
// missing, after loading it.
func TestPipeReloadsLibrary(t *testing.T) {
	ctx := context.Background()
	for _, target := range []struct {
		name string
		c    redis.UniversalClient
	}{{"single", redistest.Client(t)}, {"cluster", redistest.StartCluster(t)}} {
		t.Run(target.name, func(t *testing.T) {
			c := target.c
			s := testFunction(t, "return redis.call('ZCARD', KEYS[1])", "'no-writes'")
			keys, err := ShardKeys(redistest.Key(t, "pipe"), 6)
			if err != nil {
				t.Fatal(err)
			}
			for i, k := range keys {
				for j := range i {
					if err := c.ZAdd(ctx, k, redis.Z{Score: 1, Member: strconv.Itoa(j)}).Err(); err != nil {
						t.Fatal(err)
					}
				}
			}
			for round := range 2 { // the second round finds the library loaded by the first
				p := NewPipe(c)
				cmds := make([]*redis.Cmd, len(keys))
				cards := make([]*redis.IntCmd, len(keys))
				for i, k := range keys {
					cmds[i] = p.CallRO(ctx, s, []string{k})
					cards[i] = p.ZCard(ctx, k)
				}
				p.Exec(ctx)
				for i := range keys {
					if n, err := cmds[i].Int64(); err != nil || n != int64(i) || cards[i].Val() != int64(i) {
						t.Errorf("round %d, shard %d: script %d, %v; ZCARD %d", round, i, n, err, cards[i].Val())
					}
				}
			}
		})
	}
}

// Gather sends every item to its shard once and puts the shards' answers back in the order of
// the items; a shard's error fails the whole; no items, no calls.
func TestGather(t *testing.T) {
	ctx := context.Background()
	shards := []string{"s0", "s1", "s2"}
	ids := []string{"a", "b", "c", "d", "e", "f", "g", "a"}
	var mu sync.Mutex
	calls := map[string][]string{}
	echo := func(shard string, _ context.Context, part []string) ([]string, error) {
		mu.Lock()
		calls[shard] = append(calls[shard], part...)
		mu.Unlock()
		out := make([]string, len(part))
		for i, id := range part {
			out[i] = shard + ":" + id
		}
		return out, nil
	}
	got, err := Gather(ctx, shards, ids, func(id string) string { return id }, echo)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if want := shards[ShardOf(id, 3)] + ":" + id; got[i] != want {
			t.Errorf("result %d = %q, want %q", i, got[i], want)
		}
	}
	sent := 0
	for shard, part := range calls {
		sent += len(part)
		for _, id := range part {
			if shards[ShardOf(id, 3)] != shard {
				t.Errorf("%q sent to %s", id, shard)
			}
		}
	}
	if sent != len(ids) {
		t.Errorf("%d items sent, want %d", sent, len(ids))
	}
	failing := func(shard string, ctx context.Context, part []string) ([]string, error) {
		if shard == shards[ShardOf("b", 3)] {
			return nil, ErrNotFound
		}
		return echo(shard, ctx, part)
	}
	if out, err := Gather(ctx, shards, ids, func(id string) string { return id }, failing); !errors.Is(err, ErrNotFound) || out != nil {
		t.Errorf("Gather with a failing shard = %v, %v; want nil, ErrNotFound", out, err)
	}
	if out, err := Gather(ctx, shards, nil, func(id string) string { return id }, failing); out != nil || err != nil {
		t.Errorf("Gather of no items = %v, %v; want nil, nil", out, err)
	}
}

// SumShards adds up every shard's count, and reports a shard's error.
func TestSumShards(t *testing.T) {
	ctx := context.Background()
	n, err := SumShards(ctx, 5, func(_ context.Context, shard int) (int64, error) { return int64(shard * 10), nil })
	if n != 100 || err != nil {
		t.Errorf("SumShards = %d, %v; want 100, nil", n, err)
	}
	_, err = SumShards(ctx, 5, func(_ context.Context, shard int) (int64, error) {
		if shard == 3 {
			return 0, ErrOutOfRange
		}
		return 1, nil
	})
	if !errors.Is(err, ErrOutOfRange) {
		t.Errorf("SumShards with a failing shard: %v, want ErrOutOfRange", err)
	}
}

// TiesAhead counts the members greater than a member among equal scores, reading a run longer
// than a band on: on real Redis, against a count by ZREVRANGE of the whole run.
func TestTiesAhead(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key := redistest.Key(t, "ties")
	const run = 2*TieBand + 37
	zs := []redis.Z{{Score: 9, Member: "zz-ahead-of-the-run"}, {Score: 5, Member: "behind"}}
	for i := range run {
		zs = append(zs, redis.Z{Score: 7, Member: fmt.Sprintf("m%04d", i)})
	}
	if err := c.ZAdd(ctx, key, zs...).Err(); err != nil {
		t.Fatal(err)
	}
	score := FormatScore(7)
	for _, member := range []string{"m0000", "m0100", "m0300", "m0550", "m0600", "", "zzz"} {
		band, err := TieRun(ctx, c, key, score, 0).Result()
		if err != nil || len(band) != TieBand {
			t.Fatalf("TieRun: %d members, %v; want %d", len(band), err, TieBand)
		}
		got, err := TiesAhead(ctx, c, key, score, member, band)
		want := int64(0)
		for i := range run {
			if fmt.Sprintf("m%04d", i) > member {
				want++
			}
		}
		if err != nil || got != want {
			t.Errorf("TiesAhead(%q) = %d, %v; want %d", member, got, err, want)
		}
	}
	if err := c.Set(ctx, key, "not a sorted set", 0).Err(); err != nil {
		t.Fatal(err)
	}
	full := make([]string, TieBand)
	for i := range full {
		full[i] = "~"
	}
	if _, err := TiesAhead(ctx, c, key, score, "a", full); !errors.Is(err, ErrWrongType) {
		t.Errorf("TiesAhead reading on a key of another type: %v, want ErrWrongType", err)
	}
}

// AsIs passes a value through unchanged, without error.
func TestAsIs(t *testing.T) {
	if v, err := AsIs(int64(-7)); v != -7 || err != nil {
		t.Errorf("AsIs(-7) = %d, %v", v, err)
	}
}

// Reshard copies every shard's entries page by page, reports each page, resumes from a progress
// it reported, refuses bad arguments, and reports a copy whose size differs (DriftError).
func TestReshardCopy(t *testing.T) {
	ctx := context.Background()
	source := [][]int{{1, 2, 3, 4, 5}, {}, {6, 7}}
	page := func(_ context.Context, shard int, after int, n int64) ([]int, int, error) {
		var out []int
		for _, x := range source[shard] {
			if x > after && int64(len(out)) < n {
				out = append(out, x)
			}
		}
		if len(out) == 0 {
			return nil, 0, nil
		}
		return out, out[len(out)-1], nil
	}
	var copied []int
	store := func(_ context.Context, xs []int) error { copied = append(copied, xs...); return nil }
	count := func(n *int64) func(context.Context) (int64, error) {
		return func(context.Context) (int64, error) { return *n, nil }
	}
	seven := int64(7)
	var seen []ReshardProgress[int]
	at, err := Reshard(ctx, 3, ReshardProgress[int]{}, 2, page, store, func(p ReshardProgress[int]) { seen = append(seen, p) }, count(&seven), func(context.Context) (int64, error) { return int64(len(copied)), nil })
	if err != nil || at != (ReshardProgress[int]{Shard: 3, Copied: 7}) || !slices.Equal(copied, []int{1, 2, 3, 4, 5, 6, 7}) {
		t.Fatalf("Reshard = %+v, %v; copied %v", at, err, copied)
	}
	if want := []ReshardProgress[int]{{0, 2, 2}, {0, 4, 4}, {0, 5, 5}, {2, 7, 7}}; !slices.Equal(seen, want) {
		t.Errorf("progress %v, want %v", seen, want)
	}
	copied = nil
	at, err = Reshard(ctx, 3, seen[1], 2, page, store, nil, count(&seven), func(context.Context) (int64, error) { return 7, nil })
	if err != nil || at.Copied != 7 || !slices.Equal(copied, []int{5, 6, 7}) {
		t.Errorf("resumed from %+v: %+v, %v; copied %v, want 5 6 7", seen[1], at, err, copied)
	}
	six := int64(6)
	if _, err := Reshard(ctx, 3, ReshardProgress[int]{}, 2, page, store, nil, count(&seven), count(&six)); !errors.Is(err, ErrReshardDrift) {
		t.Errorf("a copy of 6 of 7 entries: %v, want ErrReshardDrift", err)
	}
	for _, bad := range []struct {
		from     ReshardProgress[int]
		pageSize int64
	}{{ReshardProgress[int]{}, 0}, {ReshardProgress[int]{Shard: -1}, 2}, {ReshardProgress[int]{Shard: 4}, 2}} {
		if _, err := Reshard(ctx, 3, bad.from, bad.pageSize, page, store, nil, count(&seven), count(&seven)); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("Reshard from %+v, pageSize %d: %v, want ErrOutOfRange", bad.from, bad.pageSize, err)
		}
	}
}

// countdown is n, n-1, …, 1.
func countdown(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = n - i
	}
	return out
}

// TestHeads: the first n of the merge of what Heads reads are the first n of all the shards'
// entries, whether they spread evenly (one round, each shard read short of n) or one shard
// holds them all (a second round for it alone); n of math.MaxInt64 reads everything.
func TestHeads(t *testing.T) {
	desc := func(a, b int) int { return b - a }
	for _, tc := range []struct {
		name   string
		shards [][]int // every shard's entries, best first
		n      int64
		rounds int
	}{
		{"even", [][]int{{99, 96, 93, 90, 87, 84, 81, 78, 75, 72, 69, 66}, {98, 95, 92, 89, 86, 83, 80, 77, 74, 71}, {97, 94, 91, 88, 85, 82, 79, 76, 73, 70}}, 12, 1},
		{"skewed", [][]int{countdown(30), {-1, -2, -3, -4, -5, -6}, {-7, -8}}, 20, 2},
		{"short shards", [][]int{{5, 3}, {4}, {}}, 10, 1},
		{"everything", [][]int{{5, 3}, {4}, {}}, math.MaxInt64, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rounds, read := 0, 0
			lists, err := Heads(len(tc.shards), tc.n, desc, func(bounds func(int) (int64, int64)) ([][]int, error) {
				rounds++
				out := make([][]int, len(tc.shards))
				for i, all := range tc.shards {
					start, stop := bounds(i)
					if stop < 0 || stop >= int64(len(all)) {
						stop = int64(len(all)) - 1
					}
					if start <= stop {
						out[i] = all[start : stop+1]
						read += len(out[i])
					}
				}
				return out, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var all []int
			for _, s := range tc.shards {
				all = append(all, s...)
			}
			slices.SortFunc(all, desc)
			want := all[:min(int64(len(all)), tc.n)]
			if got := MergeSorted(lists, tc.n, desc); !slices.Equal(got, want) {
				t.Errorf("merged %v, want %v", got, want)
			}
			if rounds != tc.rounds {
				t.Errorf("%d rounds, want %d", rounds, tc.rounds)
			}
			if tc.name == "even" && read >= int(tc.n)*len(tc.shards) {
				t.Errorf("read %d entries, as many as reading n from every shard", read)
			}
		})
	}
}

package redistraps

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// randomBytes returns an id of 1…n bytes drawn mostly from the bytes that trip naive
// comparisons: NUL, 0x7f/0x80 (signed vs unsigned char), 0xff and ASCII.
func randomBytes(rng *rand.Rand, n int) string {
	alphabet := []byte{0x00, 0x01, 'a', 'b', 'z', 0x7f, 0x80, 0x81, 0xfe, 0xff}
	b := make([]byte, 1+rng.IntN(n))
	for i := range b {
		if rng.IntN(4) == 0 {
			b[i] = byte(rng.IntN(256))
		} else {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
	}
	return string(b)
}

// R6: equal scores order by member bytes — memcmp as unsigned bytes, then length — binary
// safe (NUL, bytes ≥ 0x80), and ZREVRANGE is the exact reverse of ZRANGE, ties included.
func TestTrapTiesByMemberBytes(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { trapTiesByMemberBytes(t, tg.Client) })
}

func trapTiesByMemberBytes(t *testing.T, c redis.UniversalClient) {
	rng := newRand(t, 13)
	seen := map[string]bool{}
	var members []string
	add := func(m string) {
		if !seen[m] {
			seen[m] = true
			members = append(members, m)
		}
	}
	for _, m := range []string{"a", "a\x00", "a\x00\x00", "a\x01", "\x00", "\x7f", "\x80", "\xff", "\xff\xff", "ab"} {
		add(m)
	}
	for len(members) < 3000 {
		add(randomBytes(rng, 8))
	}
	for _, size := range []int{100, len(members)} { // a listpack and a skiplist
		k := redistest.Key(t, "ties"+strconv.Itoa(size))
		set := members[:size]
		zs := make([]redis.Z, len(set))
		for i, m := range set {
			zs[i] = redis.Z{Score: 42, Member: m}
		}
		if err := c.ZAdd(ctx, k, zs...).Err(); err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(set)
		slices.SortFunc(want, func(a, b string) int { return bytes.Compare([]byte(a), []byte(b)) })
		asc, err := c.ZRange(ctx, k, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(asc, want) {
			t.Fatalf("%d members: ZRANGE order differs from bytes.Compare order", size)
		}
		desc, err := c.ZRangeArgs(ctx, redis.ZRangeArgs{Key: k, Start: 0, Stop: -1, Rev: true}).Result()
		if err != nil {
			t.Fatal(err)
		}
		slices.Reverse(want)
		if !slices.Equal(desc, want) {
			t.Fatalf("%d members: ZRANGE … REV (ZREVRANGE) is not the exact reverse of ZRANGE", size)
		}
	}
}

// R6 and the reading order of docs/codec.md together: for every example layout, entries with equal fields and binary ids
// (and entries differing in any field) read back from ZREVRANGE in exactly the order of the
// interpreted Compare — the order the generated Compare must reproduce.
func TestTrapCompareIsRedisOrder(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { trapCompareIsRedisOrder(t, tg.Client) })
}

func trapCompareIsRedisOrder(t *testing.T, c redis.UniversalClient) {
	for _, name := range examples {
		t.Run(name, func(t *testing.T) {
			l := example(t, name)
			rng := newRand(t, 17)
			k := redistest.Key(t, "board")
			// A few distinct field tuples, shared by many ids, so that ties are common.
			tuples := make([][]uint64, 8)
			for i := range tuples {
				tuples[i] = make([]uint64, len(l.Fields))
				for j, f := range l.Fields {
					tuples[i][j] = f.Key(rng.Uint64N(f.Span() + 1))
					if i == 0 {
						tuples[i][j] = f.Key(0)
					}
				}
			}
			ids := map[string]bool{}
			var entries []layout.Entry
			for len(entries) < 2000 {
				var id string
				if l.IDType == layout.IDUint64 {
					id = strconv.FormatUint(randomUint(rng, 64), 10)
				} else {
					id = randomBytes(rng, min(l.MaxBytes, 10))
				}
				if ids[id] {
					continue
				}
				ids[id] = true
				entries = append(entries, layout.Entry{ID: id, Keys: tuples[rng.IntN(len(tuples))]})
			}
			zs := make([]redis.Z, len(entries))
			for i, e := range entries {
				score, member, err := l.Encode(e)
				if err != nil {
					t.Fatal(err)
				}
				zs[i] = redis.Z{Score: score, Member: member}
			}
			if err := c.ZAdd(ctx, k, zs...).Err(); err != nil {
				t.Fatal(err)
			}
			got, err := c.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: k, Start: 0, Stop: -1, Rev: true}).Result()
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(entries, l.Compare)
			if len(got) != len(entries) {
				t.Fatalf("%d members; want %d", len(got), len(entries))
			}
			for i, z := range got {
				e, err := l.Decode(z.Score, z.Member.(string))
				if err != nil {
					t.Fatal(err)
				}
				if e.ID != entries[i].ID || !slices.Equal(e.Keys, entries[i].Keys) {
					t.Fatalf("rank %d: Redis has %q %v; Compare puts %q %v there", i+1, e.ID, e.Keys, entries[i].ID, entries[i].Keys)
				}
			}
		})
	}
}

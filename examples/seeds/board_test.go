package seeds_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/examples/generated/seed000member"
	"github.com/rankgen/rankgen/examples/generated/seed001zranking"
	"github.com/rankgen/rankgen/examples/generated/seed002binary"
	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/examples/generated/seed002keysort"
	"github.com/rankgen/rankgen/examples/generated/seed003scaling"
	"github.com/rankgen/rankgen/examples/generated/seed004shift"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// rawPairs reads a board's sorted set as ZREVRANGE returns it.
func rawPairs(t testing.TB, c *redis.Client, key string) []pair { return zrevrange(t, c, key) }

// The seed 002 rows written through each generated board (Set): Redis holds exactly the seed's
// scores (and the key-sort members as meant), Top reads D, E, C, B, A, Get returns each row.
func TestBoardSeed002(t *testing.T) {
	c := redistest.Client(t)
	ctx := context.Background()
	ms := time.UnixMilli
	scores := map[string][3]float64{ // binary, decimal, key sort
		"A": {108201125491, 100.1290072179, 100}, "B": {215038436979, 200.0290072179, 200}, "C": {215575307891, 200.1290072179, 200},
		"D": {429786801779, 400.0290072179, 400}, "E": {215575316911, 200.1290081199, 200},
	}
	keyMembers := map[string]string{"A": "1-8428180978740-A", "B": "0-8428180978740-B", "C": "1-8428180978740-C", "D": "0-8428180978740-D", "E": "1-8428189998740-E"}

	bin := seed002binary.NewBoard(c, redistest.Key(t, "binary"))
	dec := seed002decimal.NewBoard(c, redistest.Key(t, "decimal"))
	ks := seed002keysort.NewBoard(c, redistest.Key(t, "keysort"))
	for _, r := range seed002Rows {
		if _, err := bin.Set(ctx, seed002binary.Entry{Player: r.Player, Points: uint32(r.Points), Paid: r.Paid, ReachedAt: seedSeconds(r.TsMs)}); err != nil {
			t.Fatal(err)
		}
		if _, err := dec.Set(ctx, seed002decimal.Entry{Player: r.Player, Points: uint32(r.Points), Paid: r.Paid, ReachedAt: seedSeconds(r.TsMs)}); err != nil {
			t.Fatal(err)
		}
		if _, err := ks.Set(ctx, seed002keysort.Entry{Player: r.Player, Points: uint64(r.Points), Paid: r.Paid, ReachedAt: ms(r.TsMs)}); err != nil {
			t.Fatal(err)
		}
	}
	for i, key := range []string{bin.Key(), dec.Key(), ks.Key()} {
		var members []string
		for _, p := range rawPairs(t, c, key) {
			id := p.Member
			if i == 2 {
				id = p.Member[len(p.Member)-1:]
				if p.Member != keyMembers[id] {
					t.Errorf("key sort: member %q, want %q", p.Member, keyMembers[id])
				}
			}
			if p.Score != scores[id][i] {
				t.Errorf("%s: %s stored %v, the seed's score is %v", key, id, p.Score, scores[id][i])
			}
			members = append(members, id)
		}
		if !slices.Equal(members, seed002Order) {
			t.Errorf("%s: ZREVRANGE %v, want %v", key, members, seed002Order)
		}
	}
	top, err := ks.Top(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range top {
		ids = append(ids, r.Player)
	}
	if !slices.Equal(ids, seed002Order) {
		t.Errorf("key sort Top = %v, want %v", ids, seed002Order)
	}
	e, err := dec.Get(ctx, "E")
	if err != nil || e.Points != 200 || !e.Paid || e.ReachedAt.Unix() != 1571810001 {
		t.Errorf("decimal Get(E) = %+v %v", e, err)
	}
	// The seed's "增加高位分数 … ZINCRBY" is AddPoints, atomic and range-checked.
	if e, err := bin.AddPoints(ctx, "A", 1<<23); !errors.Is(err, rankgenrt.ErrOverflow) || e.Player != "" {
		t.Errorf("AddPoints past 23 bits = %+v %v, want ErrOverflow", e, err)
	}
	if e, err := bin.AddPoints(ctx, "A", 50); err != nil || e.Points != 150 || !e.Paid {
		t.Errorf("AddPoints(A, 50) = %+v %v", e, err)
	}
}

// The other seeds' vectors written through their boards and read back from Redis.
func TestBoardSeedVectors(t *testing.T) {
	c := redistest.Client(t)
	ctx := context.Background()
	s := func(n int64) time.Time { return time.Unix(n, 0) }

	b0 := seed000member.NewBoard(c, redistest.Key(t, "s0"))
	if _, err := b0.Set(ctx, seed000member.Entry{UserID: "user123", Primary: 9876543210, ReachedAt: s(1721059200)}); err != nil {
		t.Fatal(err)
	}
	b1 := seed001zranking.NewBoard(c, redistest.Key(t, "s1"))
	if _, err := b1.Set(ctx, seed001zranking.Entry{UID: "u1", Value: 100, UpdatedAt: s(seed001End - 12345)}); err != nil {
		t.Fatal(err)
	}
	b3 := seed003scaling.NewBoard(c, redistest.Key(t, "s3"))
	for _, raw := range []uint16{100, 899} {
		if _, err := b3.Set(ctx, seed003scaling.Entry{Member: strconv.Itoa(int(raw)), Raw: raw, At: s(1700000000)}); err != nil {
			t.Fatal(err)
		}
	}
	b4 := seed004shift.NewBoard(c, redistest.Key(t, "s4"))
	for _, e := range []seed004shift.Entry{{UserID: "A", Points: 100, At: s(1000)}, {UserID: "B", Points: 100, At: s(2000)}, {UserID: "C", Points: 101, At: s(3000)}} {
		if _, err := b4.Set(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, c0 := range []struct {
		key  string
		want []pair
	}{
		{b0.Key(), []pair{{9876543210, "1434700799:user123"}}},
		{b1.Key(), []pair{{100.012345, "u1"}}},
		{b3.Key(), []pair{{8990000447483647, "899"}, {1000000447483647, "100"}}},
		{b4.Key(), []pair{{435939177543, "C"}, {431644212247, "A"}, {431644211247, "B"}}},
	} {
		if got := rawPairs(t, c, c0.key); !slices.Equal(got, c0.want) {
			t.Errorf("%s holds %v, want %v", c0.key, got, c0.want)
		}
	}
	if _, err := b4.Set(ctx, seed004shift.Entry{UserID: "late", Points: 100, At: s(1 << 31)}); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Errorf("Set after 2038 = %v, want ErrOutOfRange", err)
	}
}

// A board seed 000 wrote (its EncodeEntry and ZADD), adopted by the generated board: Reindex
// builds the index, then the board reads every entry and updates move members without ever
// leaving two for one id — also under concurrent updates of the same ids, where the seed's
// ZREM-old-then-ZADD with a stale old member duplicates (TestSeed000StaleOldMemberLeavesTwoMembers).
func TestBoardAdoptsSeed000(t *testing.T) {
	c := redistest.Client(t)
	ctx := context.Background()
	key := redistest.Key(t, "rank:zset")
	written := seed000Board(t, c, key, 300)
	b := seed000member.NewBoard(c, key)

	rep, err := b.Reindex(ctx)
	if err != nil || rep.Written != 300 {
		t.Fatalf("Reindex = %+v, %v", rep, err)
	}
	for id, m := range written {
		e, err := b.Get(ctx, id)
		if err != nil {
			t.Fatalf("Get(%q): %v", id, err)
		}
		primary, ts, _, _ := seed000DecodeEntry(c.ZScore(ctx, key, m).Val(), m)
		if e.Primary != uint64(primary) || e.ReachedAt.Unix() != ts {
			t.Fatalf("Get(%q) = %+v, the seed's decode %d %d", id, e, primary, ts)
		}
	}
	// Update as the seed's atomic Lua does (delta and a new time), through the generated board.
	e, err := b.AddPrimary(ctx, "user:7", 5)
	if err != nil || e.Primary != 49+5 {
		t.Fatalf("AddPrimary = %+v %v", e, err)
	}
	e, err = b.SetReachedAt(ctx, "user:7", time.Unix(1721060000, 0))
	if err != nil || e.ReachedAt.Unix() != 1721060000 {
		t.Fatalf("SetReachedAt = %+v %v", e, err)
	}
	if c.ZScore(ctx, key, written["user:7"]).Err() != redis.Nil {
		t.Fatal("the old member of user:7 is still in the set")
	}
	if n := c.ZCard(ctx, key).Val(); n != 300 {
		t.Fatalf("%d members after the updates, want 300", n)
	}
	// The seed's own decoder still reads what the generated board wrote.
	m := c.HGet(ctx, b.Keys()[1], "user:7").Val()
	if p, ts, id, err := seed000DecodeEntry(c.ZScore(ctx, key, m).Val(), m); err != nil || p != 54 || ts != 1721060000 || id != "user:7" {
		t.Fatalf("the seed's decode of the new member: %d %d %q %v", p, ts, id, err)
	}

	// 16 writers × 100 updates on 10 shared ids, each moving the member (new time every time).
	var wg sync.WaitGroup
	var mu sync.Mutex
	added := map[string]uint64{}
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				id := fmt.Sprintf("user:%d", (w+i)%10)
				if _, err := b.AddPrimary(ctx, id, 1); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				added[id]++
				mu.Unlock()
				if _, err := b.SetReachedAt(ctx, id, time.Unix(1721059200+int64(w*1000+i), 0)); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	if n := c.ZCard(ctx, key).Val(); n != 300 {
		t.Fatalf("%d members after concurrent updates, want 300 (one per id)", n)
	}
	seen := map[string]bool{}
	for _, p := range rawPairs(t, c, key) {
		e, err := seed000member.Decode(p.Score, p.Member)
		if err != nil {
			t.Fatal(err)
		}
		if seen[e.UserID] {
			t.Fatalf("two members for %q", e.UserID)
		}
		seen[e.UserID] = true
	}
	for id, n := range added {
		e, err := b.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var i uint64
		fmt.Sscanf(id, "user:%d", &i)
		base := i * 7 % 50 // seed000Board's primary
		if id == "user:7" {
			base += 5
		}
		if e.Primary != base+n {
			t.Errorf("%s: Primary %d, want %d + %d (no lost update)", id, e.Primary, base, n)
		}
	}
	// A rerun of Reindex on the live board changes nothing.
	if rep, err := b.Reindex(ctx); err != nil || rep.Written != 0 || rep.Unchanged != 300 {
		t.Fatalf("Reindex rerun = %+v, %v", rep, err)
	}
}

// A board zranking wrote (val2score and ZADD, then its own update script), adopted by the
// generated board: every score its Go code wrote decodes exactly, including values of a
// million and more that its score2val misreads; the generated board's updates return exact
// entries where zranking's script returns 14 digits; and the scores its script rounded twice
// are refused with ErrBadScore until rewritten.
func TestBoardAdoptsSeed001(t *testing.T) {
	c := redistest.Client(t)
	ctx := context.Background()
	key := redistest.Key(t, "zranking")
	z := seed001New(seed001Start, seed001End)
	type row struct {
		uid   string
		value int64
		at    int64
	}
	rows := []row{{"small", 100, seed001End - 12345}, {"million", 1_000_000, seed001End - 500_000}, {"big", 123_456_788, seed001End - 12345}, {"huge", 8_000_000_000, seed001Start}}
	for _, r := range rows {
		s, _ := z.val2score(r.value, r.at)
		zadd(t, c, key, []pair{{s, r.uid}})
	}
	b := seed001zranking.NewBoard(c, key)
	for _, r := range rows {
		e, err := b.Get(ctx, r.uid)
		if err != nil || e.Value != uint64(r.value) || e.UpdatedAt.Unix() != r.at {
			t.Fatalf("Get(%s) = %+v %v; want %d at %d", r.uid, e, err, r.value, r.at)
		}
		if v, err := z.score2val(c.ZScore(ctx, key, r.uid).Val()); r.value >= 1_000_000 && err == nil && v == r.value {
			t.Fatalf("zranking's score2val read %s right; expected the fmt.Sprint trap", r.uid)
		}
	}
	top, err := b.Top(ctx, 10)
	if err != nil || len(top) != 4 || top[0].UID != "huge" || top[3].UID != "small" {
		t.Fatalf("Top = %+v %v", top, err)
	}

	// The generated update returns the exact new entry (zranking's script returns tostring).
	script := redis.NewScript(seed001UpdateLua)
	valScore, _ := z.val2score(1, seed001End-12345)
	ret, err := script.Run(ctx, c, []string{key}, "big", valScore).Text()
	if err != nil {
		t.Fatal(err)
	}
	if ret != "123456789.01235" {
		t.Fatalf("zranking's script returned %q", ret)
	}
	e, err := b.AddValue(ctx, "big", 1)
	if err != nil || e.Value != 123_456_790 || e.UpdatedAt.Unix() != seed001End-12345 {
		t.Fatalf("AddValue(big, 1) = %+v %v", e, err)
	}
	want, _ := z.val2score(123_456_790, seed001End-12345)
	if got := c.ZScore(ctx, key, "big").Val(); got != want {
		t.Fatalf("stored %v, want exactly %v", got, want)
	}
	if e, err := b.SetUpdatedAt(ctx, "big", time.Unix(seed001End-1, 0)); err != nil || e.Value != 123_456_790 || e.UpdatedAt.Unix() != seed001End-1 {
		t.Fatalf("SetUpdatedAt = %+v %v", e, err)
	}

	// zranking's script adding 759 at deltaTs 798898 to 13114 stores 13873.798898000001: not a
	// score of this layout. The generated board refuses to read or update it; Set rewrites it.
	old, _ := z.val2score(13114, seed001End-1)
	zadd(t, c, key, []pair{{old, "twice"}})
	valScore, _ = z.val2score(759, seed001End-798898)
	if _, err := script.Run(ctx, c, []string{key}, "twice", valScore).Result(); err != nil {
		t.Fatal(err)
	}
	exact, _ := z.val2score(13873, seed001End-798898)
	if got := c.ZScore(ctx, key, "twice").Val(); got == exact {
		t.Fatalf("the seed's script stored the exact %v", got)
	}
	if _, err := b.Get(ctx, "twice"); !errors.Is(err, rankgenrt.ErrBadScore) {
		t.Fatalf("Get(twice) = %v, want ErrBadScore", err)
	}
	if _, err := b.AddValue(ctx, "twice", 1); !errors.Is(err, rankgenrt.ErrBadScore) {
		t.Fatalf("AddValue(twice) = %v, want ErrBadScore", err)
	}
	// Set's answer says an entry was there, one it cannot decode: Before stays the zero Entry.
	if w, err := b.Set(ctx, seed001zranking.Entry{UID: "twice", Value: 13873, UpdatedAt: time.Unix(seed001End-798898, 0)}); err != nil ||
		!w.Existed || !w.Changed || w.Before != (seed001zranking.Entry{}) || w.Value != 13873 {
		t.Fatalf("Set over a foreign score = %+v, %v; want Existed, Changed, a zero Before", w, err)
	}
	if got := c.ZScore(ctx, key, "twice").Val(); got != exact {
		t.Fatalf("after Set: %v, want %v", got, exact)
	}
}

// A seed 000 board must be reindexed before the generated board writes to it: the board finds
// an entry by id through its index, so an id the index lacks would look new and its first update
// would add a second member beside the one the seed wrote. Every write script refuses a board
// that has entries but no index (ErrNotIndexed) and leaves it as it was, and so does a read of an
// id (the reads of places read the seed's entries as they are); after Reindex the same update
// changes the seed's member in place.
func TestBoardBeforeReindexIsRefused(t *testing.T) {
	c := redistest.Client(t)
	ctx := context.Background()
	key := redistest.Key(t, "rank:zset")
	written := seed000Board(t, c, key, 3)
	b := seed000member.NewBoard(c, key)
	if _, err := b.Get(ctx, "user:1"); !errors.Is(err, rankgenrt.ErrNotIndexed) {
		t.Fatalf("Get before Reindex = %v, want ErrNotIndexed (the index is needed to find an id)", err)
	}
	if top, err := b.Top(ctx, 10); err != nil || len(top) != 3 {
		t.Fatalf("Top before Reindex = %d entries, %v; want the seed's 3", len(top), err)
	}
	before := c.ZRangeWithScores(ctx, key, 0, -1).Val()
	writes := map[string]error{}
	_, writes["AddPrimary"] = b.AddPrimary(ctx, "user:1", 1)
	res, err := b.AddPrimaryMany(ctx, []seed000member.Update[int64]{{UserID: "user:1", Value: 1}})
	writes["AddPrimaryMany"] = err
	_, writes["Set"] = b.Set(ctx, seed000member.Entry{UserID: "user:1", Primary: 5, ReachedAt: time.Unix(1721059200, 0).UTC()})
	_, writes["Best"] = b.Best(ctx, seed000member.Entry{UserID: "user:1", Primary: 5, ReachedAt: time.Unix(1721059200, 0).UTC()})
	_, writes["Remove"] = b.Remove(ctx, "user:1")
	_, writes["Trim"] = b.Trim(ctx, 1)
	for what, err := range writes {
		if !errors.Is(err, rankgenrt.ErrNotIndexed) {
			t.Errorf("%s before Reindex = %v, want ErrNotIndexed", what, err)
		}
	}
	if res != nil {
		t.Errorf("AddPrimaryMany results %v on a refused call", res)
	}
	if after := c.ZRangeWithScores(ctx, key, 0, -1).Val(); !slices.Equal(before, after) {
		t.Fatalf("refused writes changed the board: %v, then %v", before, after)
	}
	if n := c.Exists(ctx, rankgenrt.IndexKey(key)).Val(); n != 0 {
		t.Fatalf("refused writes created the index")
	}

	if _, err := b.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	e, err := b.AddPrimary(ctx, "user:1", 1)
	if err != nil {
		t.Fatal(err)
	}
	score, member, err := e.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if n := c.ZCard(ctx, key).Val(); n != 3 || member != written["user:1"] || c.ZScore(ctx, key, member).Val() != score {
		t.Fatalf("after Reindex: %d members, user:1 at %q; want the seed's member %q updated in place", n, member, written["user:1"])
	}
	if got, err := b.Get(ctx, "user:1"); err != nil || got != e.Entry {
		t.Fatalf("Get = %+v, %v; want %+v", got, err, e)
	}
}

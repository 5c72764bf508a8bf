package seeds_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// seedSchemas are the seeds' schema names ("seed000_member", …).
var seedSchemas = func() []string {
	var out []string
	for _, ex := range seedExamples() {
		out = append(out, ex.SchemaName())
	}
	return out
}()

// randomEntry draws every field uniformly from its range, the ends often, and an id of 1…12
// bytes drawn from a few letters, ":", "-", NUL and bytes ≥ 0x80 (ties order by raw bytes).
func randomEntry(r *rand.Rand, l *layout.Layout) layout.Entry {
	e := layout.Entry{Keys: make([]uint64, len(l.Fields))}
	for i, f := range l.Fields {
		switch r.IntN(8) {
		case 0:
			e.Keys[i] = f.Lo
		case 1:
			e.Keys[i] = f.Hi
		case 2: // few distinct values, so that ties reach the later fields and the id
			e.Keys[i] = f.Lo + r.Uint64N(min(f.Span(), 3)+1)
		default:
			e.Keys[i] = f.Lo + r.Uint64N(f.Span()+1)
		}
	}
	const alphabet = "ab:-\x00\x80\xff"
	id := make([]byte, 1+r.IntN(12))
	for i := range id {
		id[i] = alphabet[r.IntN(len(alphabet))]
	}
	e.ID = string(id)
	return e
}

func zadd(t testing.TB, c *redis.Client, key string, ps []pair) {
	t.Helper()
	zs := make([]redis.Z, len(ps))
	for i, p := range ps {
		zs[i] = redis.Z{Score: p.Score, Member: p.Member}
	}
	if err := c.ZAdd(context.Background(), key, zs...).Err(); err != nil {
		t.Fatal(err)
	}
}

func zrevrange(t testing.TB, c *redis.Client, key string) []pair {
	t.Helper()
	zs, err := c.ZRevRangeWithScores(context.Background(), key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	ps := make([]pair, len(zs))
	for i, z := range zs {
		ps[i] = pair{z.Score, z.Member.(string)}
	}
	return ps
}

// The seed 002 rows through a real server: ZADD rankgen's pairs, ZREVRANGE reads D, E, C, B, A
// for all three layouts, every score comes back bit for bit and decodes to its row.
func TestSeed002OrderOnRedis(t *testing.T) {
	c := redistest.Client(t)
	for _, name := range []string{"seed002_binary", "seed002_decimal", "seed002_keysort"} {
		l := load(t, name)
		var es []layout.Entry
		for _, r := range seed002Rows {
			at := sec(r.TsMs / 1000)
			if name == "seed002_keysort" {
				at = msec(r.TsMs)
			}
			es = append(es, layout.Entry{ID: r.Player, Keys: []uint64{uint64(r.Points), flag(r.Paid), at}})
		}
		key := redistest.Key(t, name)
		written := encodeAll(t, l, es)
		zadd(t, c, key, written)
		var ids []string
		for _, p := range zrevrange(t, c, key) {
			e, err := l.Decode(p.Score, p.Member)
			if err != nil {
				t.Fatalf("%s: Decode(%v, %q): %v", name, p.Score, p.Member, err)
			}
			if !slices.Contains(written, p) {
				t.Fatalf("%s: read back (%v, %q), not a pair written", name, p.Score, p.Member)
			}
			ids = append(ids, e.ID)
		}
		if !slices.Equal(ids, seed002Order) {
			t.Errorf("%s: ZREVRANGE %v, want %v", name, ids, seed002Order)
		}
	}
}

// For every seed schema, 3000 random entries: the pairs come back from Redis bit for bit, in
// exactly the order layout.Compare gives, and decode to the entries written.
func TestSeedSchemasOrderOnRedis(t *testing.T) {
	c := redistest.Client(t)
	r := rng(t)
	for _, name := range seedSchemas {
		l := load(t, name)
		byMember := map[string]layout.Entry{}
		var es []layout.Entry
		for len(es) < 3000 {
			e := randomEntry(r, l)
			_, m, err := l.Encode(e)
			if err != nil {
				t.Fatal(err)
			}
			if _, dup := byMember[m]; dup || (!l.HasPrefix() && slices.ContainsFunc(es, func(x layout.Entry) bool { return x.ID == e.ID })) {
				continue // one entry per id
			}
			byMember[m] = e
			es = append(es, e)
		}
		key := redistest.Key(t, name)
		zadd(t, c, key, encodeAll(t, l, es))
		slices.SortStableFunc(es, l.Compare)
		got := zrevrange(t, c, key)
		if len(got) != len(es) {
			t.Fatalf("%s: %d members, wrote %d", name, len(got), len(es))
		}
		for i, p := range got {
			want := encodeAll(t, l, es[i:i+1])[0]
			if p != want {
				t.Fatalf("%s: rank %d is (%v, %q), Compare puts (%v, %q) there", name, i+1, p.Score, p.Member, want.Score, want.Member)
			}
			e, err := l.Decode(p.Score, p.Member)
			if err != nil || e.ID != es[i].ID || !slices.Equal(e.Keys, es[i].Keys) {
				t.Fatalf("%s: Decode(%v, %q) = %v %v; want %v", name, p.Score, p.Member, e, err, es[i])
			}
		}
	}
}

// zranking's update script, verbatim.
const seed001UpdateLua = `
-- 排行榜 key
local key = KEYS[1]
-- 要更新的用户 ID
local uid = ARGV[1]
-- 用户本次新增的 val （小数位为时间差标识）
local valScore = ARGV[2]
-- 获取用户之前的 score
local score = redis.call("ZSCORE", key, uid)
if score == false then
    score = 0
end
-- 从 score 中抹除用于时间差标识的小数部分，获取整数的排序 val
local val = math.floor(score)
-- 更新用户最新的 score 信息（累计 val.最新时间差）
local newScore = valScore+val
redis.call("ZADD", key, newScore, uid)
-- 更新成功返回 newScore（注意要使用 tostring 才能返回小数）
return tostring(newScore)
`

// zranking's script returns tostring(newScore): 14 significant digits. A value of 123,456,789
// has 15 with its six decimals, so the returned text is not the stored score: parsed, it reads
// a different time. The stored score itself is exact and rankgen decodes it.
func TestSeed001LuaTostringOnRedis(t *testing.T) {
	c := redistest.Client(t)
	ctx := context.Background()
	l := load(t, "seed001_zranking")
	z := seed001New(seed001Start, seed001End)
	key := redistest.Key(t, "zranking")
	script := redis.NewScript(seed001UpdateLua)
	at := seed001End - 12345
	wrong := 0
	for _, start := range []int64{0, 100, 123_456_788, 8_000_000_000} {
		if err := c.Del(ctx, key).Err(); err != nil {
			t.Fatal(err)
		}
		uid := "u" + strconv.FormatInt(start, 10)
		if start > 0 {
			s, _ := z.val2score(start, seed001Start)
			zadd(t, c, key, []pair{{s, uid}})
		}
		valScore, _ := z.val2score(1, at)
		// go-redis sends a float64 argument as its shortest round-trip text, as the seed does.
		ret, err := script.Run(ctx, c, []string{key}, uid, valScore).Text()
		if err != nil {
			t.Fatal(err)
		}
		stored, err := c.ZScore(ctx, key, uid).Result()
		if err != nil {
			t.Fatal(err)
		}
		returned, _ := strconv.ParseFloat(ret, 64)
		want, _ := z.val2score(start+1, at)
		if stored != want {
			// The twice-rounded add (TestSeed001LuaAddRoundsTwice); not this case's point.
			t.Fatalf("start %d: stored %v, want %v", start, stored, want)
		}
		if returned != stored {
			wrong++
			t.Logf("start %d: the script returned %q, the set holds %s", start, ret, strconv.FormatFloat(stored, 'f', -1, 64))
		}
		e, err := l.Decode(stored, uid)
		if err != nil || e.Keys[0] != uint64(start+1) || e.Keys[1] != sec(at) {
			t.Fatalf("Decode(%v) = %v %v", stored, e, err)
		}
	}
	if wrong == 0 {
		t.Fatal("tostring returned every score exactly")
	}
}

// Seed 000's update: ZREM the old composite member, ZADD the new one. The old member comes from
// the caller; when it is stale (another writer changed the entry since it was read), ZREM
// removes nothing and the id ends up with two members, both decoding to the same user.
func TestSeed000StaleOldMemberLeavesTwoMembers(t *testing.T) {
	c := redistest.Client(t)
	ctx := context.Background()
	l := load(t, "seed000_member")
	key := redistest.Key(t, "rank:zset")
	update := redis.NewScript(`
  redis.call("ZREM", KEYS[1], ARGV[1])
  redis.call("ZADD", KEYS[1], ARGV[2], ARGV[3])
  return 1
`) // the seed's updateRank, verbatim
	s0, m0, _ := seed000EncodeEntry(100, 1721059200, "user123")
	zadd(t, c, key, []pair{{s0, m0}})
	// Writer 1 reads m0 and moves the user to t+10.
	s1, m1, _ := seed000EncodeEntry(110, 1721059210, "user123")
	if err := update.Run(ctx, c, []string{key}, m0, fmt.Sprintf("%f", s1), m1).Err(); err != nil {
		t.Fatal(err)
	}
	// Writer 2 had read m0 too, before writer 1's update, and now moves the user to t+20.
	s2, m2, _ := seed000EncodeEntry(120, 1721059220, "user123")
	if err := update.Run(ctx, c, []string{key}, m0, fmt.Sprintf("%f", s2), m2).Err(); err != nil {
		t.Fatal(err)
	}
	ps := zrevrange(t, c, key)
	if len(ps) != 2 {
		t.Fatalf("%d members after the stale update, want 2: %v", len(ps), ps)
	}
	for _, p := range ps {
		e, err := l.Decode(p.Score, p.Member)
		if err != nil || e.ID != "user123" {
			t.Fatalf("Decode(%v, %q) = %v %v", p.Score, p.Member, e, err)
		}
	}
}

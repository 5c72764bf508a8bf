package redistraps

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// R10: after SCRIPT FLUSH, go-redis Script.Run falls back from EVALSHA to EVAL (which caches the
// script again); inside a pipeline there is no fallback and EVALSHA fails with NOSCRIPT until
// the script is loaded again. FUNCTION LOAD survives SCRIPT FLUSH. (A server of its own: SCRIPT
// FLUSH is server-wide.)
func TestTrapNOSCRIPT(t *testing.T) {
	s := redistest.Start(t)
	c := s.Client(t)
	script := redis.NewScript("return redis.call('INCR', KEYS[1])")
	k := "counter"

	if err := script.Run(ctx, c, []string{k}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := script.Run(ctx, c, []string{k}).Int64(); err != nil || n != 2 {
		t.Fatalf("Run after SCRIPT FLUSH = %d, %v; want 2 (EVAL fallback)", n, err)
	}
	if ok, _ := script.Exists(ctx, c).Result(); len(ok) != 1 || !ok[0] {
		t.Fatalf("SCRIPT EXISTS after the fallback = %v; want the script cached again", ok)
	}
	c.ScriptFlush(ctx)
	if v, err := rankgenrt.Run(ctx, c, script, []string{k}); err != nil || v != int64(3) {
		t.Fatalf("rankgenrt.Run after SCRIPT FLUSH = %v, %v; want 3", v, err)
	}
	c.Decr(ctx, k)

	c.ScriptFlush(ctx)
	pipe := c.Pipeline()
	script.Run(ctx, pipe, []string{k})
	script.Run(ctx, pipe, []string{k})
	_, err := pipe.Exec(ctx)
	if err == nil || !redis.HasErrorPrefix(err, "NOSCRIPT") {
		t.Fatalf("pipelined Run after SCRIPT FLUSH: %v; want NOSCRIPT", err)
	}
	if n, _ := c.Get(ctx, k).Int64(); n != 2 {
		t.Fatalf("counter = %d after the failed pipeline; want 2 (nothing ran)", n)
	}
	if err := script.Load(ctx, c).Err(); err != nil {
		t.Fatal(err)
	}
	pipe = c.Pipeline()
	script.Run(ctx, pipe, []string{k})
	script.Run(ctx, pipe, []string{k})
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatalf("pipelined Run after SCRIPT LOAD: %v", err)
	}
	if n, _ := c.Get(ctx, k).Int64(); n != 4 {
		t.Fatalf("counter = %d; want 4", n)
	}

	lib := "#!lua name=rgtest\nredis.register_function('rgtest_incr', function(keys) return redis.call('INCR', keys[1]) end)"
	if err := c.FunctionLoad(ctx, lib).Err(); err != nil {
		t.Fatal(err)
	}
	c.ScriptFlush(ctx)
	if n, err := c.FCall(ctx, "rgtest_incr", []string{k}).Int64(); err != nil || n != 5 {
		t.Fatalf("FCALL after SCRIPT FLUSH = %d, %v; want 5", n, err)
	}
	// What generated boards rely on, without reading any error's words (they are prose, not
	// protocol): loading a library again is refused, loading it with REPLACE is not (harmless:
	// their names carry their text's hash); after FUNCTION FLUSH the server lists no library
	// and a call fails without running, in a pipeline too, until the library is loaded.
	if err := c.FunctionLoad(ctx, lib).Err(); err == nil {
		t.Fatal("FUNCTION LOAD again: accepted; want a refusal")
	}
	if err := c.FunctionLoadReplace(ctx, lib).Err(); err != nil {
		t.Fatalf("FUNCTION LOAD REPLACE of the same text: %v", err)
	}
	c.FunctionFlush(ctx)
	if libs, err := c.FunctionList(ctx, redis.FunctionListQuery{LibraryNamePattern: "rgtest"}).Result(); err != nil || len(libs) != 0 {
		t.Fatalf("FUNCTION LIST after FUNCTION FLUSH = %v, %v; want no library", libs, err)
	}
	pipe = c.Pipeline()
	first := pipe.FCall(ctx, "rgtest_incr", []string{k})
	_, _ = pipe.Exec(ctx)
	if err := first.Err(); err == nil {
		t.Fatal("pipelined FCALL after FUNCTION FLUSH: ran; want an error")
	}
	if n, _ := c.Get(ctx, k).Int64(); n != 5 {
		t.Fatalf("counter after a failed FCALL = %d; want 5 (nothing ran)", n)
	}
	if n, err := rankgenrt.Call(ctx, c, rankgenrt.NewLibrary(lib).Function("incr"), []string{k}); err != nil || n != int64(6) {
		t.Fatalf("rankgenrt.Call after FUNCTION FLUSH = %v, %v; want 6 (loaded, run once)", n, err)
	}
}

// R11: on a cluster, all keys of a script must hash to one slot; a board key K keeps its side
// keys in K's slot ({K}:idx, or K's own tag). A plain EVAL may silently touch an undeclared
// key in another slot when the same master serves it; a #!lua shebang makes that an error, so
// generated scripts carry one.
func TestTrapCROSSSLOT(t *testing.T) {
	c := redistest.StartCluster(t)
	p := redistest.Prefix(t)
	a, b := p+"a", p+"b"
	if sa, sb := c.ClusterKeySlot(ctx, a).Val(), c.ClusterKeySlot(ctx, b).Val(); sa == sb {
		t.Fatalf("test keys %q and %q share slot %d; pick others", a, b, sa)
	}
	const set2 = "redis.call('SET', KEYS[1], 1) return redis.call('SET', KEYS[2], 1)"
	err := c.Eval(ctx, set2, []string{a, b}).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT") {
		t.Fatalf("EVAL on %q and %q: %v; want CROSSSLOT", a, b, err)
	}

	// rankgen's board keys: the sorted set is the user's key K, its side keys are {K}:idx and
	// {K}:meta (the tag {K} hashes like K itself); a K with a tag keeps it.
	for _, board := range []string{p + "board", "{" + p + "t}board"} {
		for _, side := range []string{rankgenrt.IndexKey(board), rankgenrt.MetaKey(board)} {
			if sb, ss := c.ClusterKeySlot(ctx, board).Val(), c.ClusterKeySlot(ctx, side).Val(); sb != ss {
				t.Fatalf("%q and %q in slots %d and %d; want one", board, side, sb, ss)
			}
			if err := c.Eval(ctx, set2, []string{board, side}).Err(); err != nil {
				t.Fatalf("EVAL on %q and %q: %v", board, side, err)
			}
		}
	}
	z, idx := p+"board", rankgenrt.IndexKey(p+"board")
	b = localKeyInAnotherSlot(t, c, z)

	const undeclared = "redis.call('SET', KEYS[1], 1) return redis.call('SET', ARGV[1], 1)"
	if err := c.Eval(ctx, undeclared, []string{z}, b).Err(); err != nil {
		t.Fatalf("plain EVAL touching undeclared %q: %v; the trap is that it succeeds", b, err)
	}
	err = c.Eval(ctx, "#!lua\n"+undeclared, []string{z}, b).Err()
	if err == nil || !strings.Contains(err.Error(), "hash to the same slot") {
		t.Fatalf("#!lua EVAL touching undeclared %q in another slot: %v; want a refusal", b, err)
	}
	if err := c.Eval(ctx, "#!lua\n"+undeclared, []string{z}, idx).Err(); err != nil {
		t.Fatalf("#!lua EVAL touching %q in the same slot: %v", idx, err)
	}
}

// localKeyInAnotherSlot returns a key under the test's prefix whose slot differs from key's but
// is served by the same master.
func localKeyInAnotherSlot(t *testing.T, c *redis.ClusterClient, key string) string {
	t.Helper()
	slot := c.ClusterKeySlot(ctx, key).Val()
	master := redistest.SlotMaster(t, c, slot)
	for i := range 1000 {
		k := redistest.Key(t, "local"+strconv.Itoa(i))
		if s := c.ClusterKeySlot(ctx, k).Val(); s != slot && redistest.SlotMaster(t, c, s) == master {
			return k
		}
	}
	t.Fatalf("no key in another slot of %q's master among 1,000 tries", key)
	return ""
}

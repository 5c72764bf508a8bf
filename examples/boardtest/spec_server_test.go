package boardtest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/examples/generated/seed000member"
	"github.com/rankgen/rankgen/examples/generated/seed001zranking"
	"github.com/rankgen/rankgen/examples/generated/seed002binary"
	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/examples/generated/seed002keysort"
	"github.com/rankgen/rankgen/examples/generated/seed003scaling"
	"github.com/rankgen/rankgen/examples/generated/seed004shift"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// TestEveryLibraryCompiles loads the library of every example on the server: FUNCTION LOAD
// compiles the Lua and registers every function, so a template that renders bad Lua for some
// layout (or a library over Lua's limits of locals and upvalues) fails here.
func TestEveryLibraryCompiles(t *testing.T) {
	c := redistest.Client(t)
	all := []*rankgenrt.Library{arena.Library(), racing.Library(), season.Library(), seed000member.Library(),
		seed001zranking.Library(), seed002binary.Library(), seed002decimal.Library(), seed002keysort.Library(),
		seed003scaling.Library(), seed004shift.Library()}
	for _, lib := range all {
		if err := lib.Load(ctx, c); err != nil {
			t.Fatalf("FUNCTION LOAD %s: %v", lib.Name, err)
		}
		n, err := c.FunctionList(ctx, redis.FunctionListQuery{LibraryNamePattern: lib.Name}).First()
		if err != nil || len(n.Functions) == 0 {
			t.Fatalf("FUNCTION LIST %s: %+v, %v; want its functions", lib.Name, n, err)
		}
	}
}

// TestFunctionAfterFlush: outside a pipeline a call that finds the library gone loads it again;
// inside a pipeline FCALL fails (function not found) until Board.Load loads it again.
func TestFunctionAfterFlush(t *testing.T) {
	srv := redistest.Start(t) // FUNCTION FLUSH is server-wide: a private server
	c := srv.Client(t)
	b := season.NewBoard(c, "{s}")
	if _, err := b.AddPoints(ctx, "u", 1); err != nil {
		t.Fatal(err)
	}
	if err := c.FunctionFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if e, err := b.AddPoints(ctx, "u", 1); err != nil || e.Points != 2 {
		t.Fatalf("after FUNCTION FLUSH: %+v, %v; want the call to load the library", e, err)
	}
	if err := c.FunctionFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, "u"); err != nil { // a read-only function too
		t.Fatal(err)
	}

	set := season.Library().Function("set")
	pipelined := func() error {
		pipe := c.Pipeline()
		cmd := pipe.FCall(ctx, set.Name, scriptKeys(parse(t, exampleNamed("season").schema), b.Key()), "", 0, "", "0", "4", "0000|00000000000|v") // no expiry, dedup off
		_, _ = pipe.Exec(ctx)
		return cmd.Err()
	}
	if err := c.FunctionFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := pipelined(); err == nil || !strings.Contains(err.Error(), "Function not found") {
		t.Fatalf("pipelined FCALL after FUNCTION FLUSH: %v; want function not found", err)
	}
	for range 2 { // loading twice is harmless
		if err := b.Load(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := pipelined(); err != nil {
		t.Fatalf("pipelined FCALL after Load: %v", err)
	}
	if e, err := b.Get(ctx, "v"); err != nil || e.UserID != "v" || e.Points != 1 {
		t.Fatalf("Get(v) = %+v, %v", e, err)
	}
}

// TestCluster: a board with an index works on Redis Cluster (its keys share a slot), Load
// reaches every master, and a key whose side key cannot share its slot fails loudly.
func TestCluster(t *testing.T) {
	c := redistest.StartCluster(t)
	key := redistest.Key(t, "season") // no hash tag: the index is {key}:idx
	b := season.NewBoard(c, key)
	if err := b.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddPoints(ctx, "u", 7); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SetTier(ctx, "w", season.TierGold); err != nil {
		t.Fatal(err)
	}
	top, err := b.Top(ctx, 10)
	if err != nil || len(top) != 2 || top[0].UserID != "u" || top[0].Points != 7 || top[1].Tier != season.TierGold {
		t.Fatalf("Top = %+v, %v", top, err)
	}
	if r, err := b.Around(ctx, "u", 1, 1); err != nil || len(r) != 2 || r[1].Rank != 2 || r[0].UserID != "u" {
		t.Fatalf("Around = %+v, %v", r, err)
	}
	// A bare-id board: its first read pipelines the meta key's GET with the read command, both
	// in one slot.
	ak := redistest.Key(t, "arena")
	a := arena.NewBoard(c, ak)
	if _, err := a.AddPoints(ctx, "p", 3); err != nil {
		t.Fatal(err)
	}
	if n, err := arena.NewBoard(c, ak).Count(ctx); err != nil || n != 1 {
		t.Fatalf("Count on Cluster = %d, %v", n, err)
	}
	if e, err := a.Get(ctx, "p"); err != nil || e.Points != 3 {
		t.Fatalf("Get on Cluster = %+v, %v", e, err)
	}
	slot := func(k string) int64 { return c.ClusterKeySlot(ctx, k).Val() }
	if slot(key) != slot(rankgenrt.IndexKey(key)) {
		t.Fatalf("slots differ: %s %s", key, rankgenrt.IndexKey(key))
	}
	bad := season.NewBoard(c, key+"}x") // a "}" without a tag: the index cannot share the slot
	if slot(key+"}x") == slot(rankgenrt.IndexKey(key+"}x")) {
		t.Skip("keys happen to share a slot")
	}
	if _, err := bad.AddPoints(ctx, "u", 1); err == nil || !strings.Contains(err.Error(), "CROSSSLOT") && !strings.Contains(err.Error(), "slot") {
		t.Fatalf("board with an unwrappable key on Cluster: %v; want a cross-slot error", err)
	}
}

// TestClientStampAndServerStamp: season stamps ReachedAt from the client's clock, arena from
// Redis's TIME; both only when the update changes the entry.
func TestStamps(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { stamps(t, tg.Client) })
}

func stamps(t *testing.T, c redis.UniversalClient) {
	s := season.NewBoard(c, redistest.Key(t, "{season}"))
	t0 := time.Now().Truncate(time.Millisecond)
	e, err := s.AddWins(ctx, "u", 2)
	if t1 := time.Now(); err != nil || e.ReachedAt.Before(t0) || e.ReachedAt.After(t1) {
		t.Fatalf("AddWins = %+v, %v; want ReachedAt in [%v, %v]", e, err, t0, t1)
	}
	time.Sleep(2 * time.Millisecond)
	same, err := s.AddWins(ctx, "u", 0)
	if err != nil || same.Entry != e.Entry || same.Before != e.Entry || same.Changed {
		t.Fatalf("AddWins(0) = %+v, %v; want the entry unchanged, stamp included", same, err)
	}
	a := arena.NewBoard(c, redistest.Key(t, "{arena}"))
	srvNow, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	ae, err := a.AddPoints(ctx, "p", 1)
	if err != nil || ae.ReachedAt.Before(srvNow.Truncate(time.Second)) || ae.ReachedAt.After(srvNow.Add(5*time.Second)) {
		t.Fatalf("arena AddPoints = %+v, %v; want ReachedAt from the server clock near %v", ae, err, srvNow)
	}
	if _, err := a.SetPaid(ctx, "p", false); err != nil { // unchanged (false already): no stamp
		t.Fatal(err)
	}
	if got, err := a.Get(ctx, "p"); err != nil || got != ae.Entry {
		t.Fatalf("Get = %+v, %v; want %+v", got, err, ae)
	}
	if _, err := a.Get(ctx, ""); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("Get(\"\") = %v; want ErrOutOfRange", err)
	}
}

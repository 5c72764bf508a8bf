package runtime_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

var ctx = context.Background()

// wantServerError fails unless err matches sentinel, is a ServerError with code, and keeps the
// server's reply reachable as a redis.Error that starts with that code.
func wantServerError(t *testing.T, what string, err, sentinel error, code string) {
	t.Helper()
	var se *rankgenrt.ServerError
	var re redis.Error
	switch {
	case !errors.Is(err, sentinel):
		t.Errorf("%s: %v; want an error matching %v", what, err, sentinel)
	case !errors.As(err, &se) || se.Code != code:
		t.Errorf("%s: %v; want a ServerError with code %s", what, err, code)
	case !errors.As(err, &re) || !strings.HasPrefix(re.Error(), code+" "):
		t.Errorf("%s: %v; want the server's %s reply reachable as a redis.Error", what, err, code)
	}
}

// TestWrongTypeIsTyped: a string where a board's sorted set or its index is makes every write
// and every read script fail with an error matching ErrWrongType, the server's WRONGTYPE reply
// reachable with errors.As, and the key left as it was. A plain read command's reply is typed
// by ReplyError.
func TestWrongTypeIsTyped(t *testing.T) {
	c := redistest.Client(t)
	const foreign = "not a board"
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

	key := redistest.Key(t, "arena")
	if err := c.Set(ctx, key, foreign, 0).Err(); err != nil {
		t.Fatal(err)
	}
	a := arena.NewBoard(c, key)
	_, err := a.AddPoints(ctx, "p", 1)
	wantServerError(t, "AddPoints", err, rankgenrt.ErrWrongType, "WRONGTYPE")
	_, err = a.Set(ctx, arena.Entry{PlayerID: "p", Points: 1, ReachedAt: at})
	wantServerError(t, "Set", err, rankgenrt.ErrWrongType, "WRONGTYPE")
	_, err = a.BestMany(ctx, []arena.Entry{{PlayerID: "p", Points: 1, ReachedAt: at}})
	wantServerError(t, "BestMany", err, rankgenrt.ErrWrongType, "WRONGTYPE")
	_, err = a.Remove(ctx, "p")
	wantServerError(t, "Remove", err, rankgenrt.ErrWrongType, "WRONGTYPE")
	_, err = a.Trim(ctx, 1)
	wantServerError(t, "Trim", err, rankgenrt.ErrWrongType, "WRONGTYPE")
	_, err = a.Around(ctx, "p", 1, 1)
	wantServerError(t, "Around", err, rankgenrt.ErrWrongType, "WRONGTYPE")
	_, _, err = a.After(ctx, arena.Cursor{}, 10)
	wantServerError(t, "After", err, rankgenrt.ErrWrongType, "WRONGTYPE")
	// Reads that go out as one plain command are typed too, before and after the Board has
	// verified its fingerprint (two paths in the generated read helper).
	vkey := redistest.Key(t, "verified")
	verified := arena.NewBoard(c, vkey)
	if _, err := verified.Set(ctx, arena.Entry{PlayerID: "p", Points: 1, ReachedAt: at}); err != nil {
		t.Fatal(err)
	}
	if n, err := verified.Count(ctx); err != nil || n != 1 { // the Board sees its fingerprint
		t.Fatalf("Count = %d, %v", n, err)
	}
	if err := c.Set(ctx, vkey, foreign, 0).Err(); err != nil { // replaced by other code
		t.Fatal(err)
	}
	for _, board := range []*arena.Board{a, verified} {
		_, err = board.Get(ctx, "p")
		wantServerError(t, "Get", err, rankgenrt.ErrWrongType, "WRONGTYPE")
		_, err = board.Count(ctx)
		wantServerError(t, "Count", err, rankgenrt.ErrWrongType, "WRONGTYPE")
		_, err = board.Top(ctx, 10)
		wantServerError(t, "Top", err, rankgenrt.ErrWrongType, "WRONGTYPE")
	}
	if got, err := c.Get(ctx, key).Result(); err != nil || got != foreign {
		t.Errorf("the key holds %q, %v after the refused writes; want %q", got, err, foreign)
	}
	if n, err := c.Exists(ctx, rankgenrt.MetaKey(key)).Result(); err != nil || n != 0 {
		t.Errorf("the meta key exists (%d, %v) after the refused writes; want nothing written", n, err)
	}

	// The index of a board whose members carry a prefix.
	skey := redistest.Key(t, "season")
	if err := c.Set(ctx, rankgenrt.IndexKey(skey), foreign, 0).Err(); err != nil {
		t.Fatal(err)
	}
	s := season.NewBoard(c, skey)
	_, err = s.AddWins(ctx, "u", 1)
	wantServerError(t, "AddWins with a string index", err, rankgenrt.ErrWrongType, "WRONGTYPE")
	if n, err := c.Exists(ctx, skey).Result(); err != nil || n != 0 {
		t.Errorf("the board's sorted set exists (%d, %v) after a refused write; want nothing written", n, err)
	}

	// Typing is idempotent, and leaves other errors alone.
	_, err = a.AddPoints(ctx, "p", 1)
	if again := rankgenrt.ReplyError(err); again != err {
		t.Errorf("ReplyError of a typed error = %v; want it unchanged", again)
	}
	other := c.Do(ctx, "NOSUCHCOMMAND").Err()
	if got := rankgenrt.ReplyError(other); got != other {
		t.Errorf("ReplyError(%v) = %v; want it unchanged", other, got)
	}
}

// TestServerFullIsTyped: on a server at maxmemory under noeviction, a write is refused with an
// error matching ErrServerFull, the server's OOM reply reachable with errors.As, and the board
// unchanged; reads still work. (A server of its own: CONFIG SET is server-wide.)
func TestServerFullIsTyped(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	a := arena.NewBoard(c, "board")
	before, err := a.AddPoints(ctx, "p", 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"maxmemory-policy", "noeviction"}, {"maxmemory", "2mb"}} {
		if err := c.ConfigSet(ctx, kv[0], kv[1]).Err(); err != nil {
			t.Fatalf("CONFIG SET %s %s: %v", kv[0], kv[1], err)
		}
	}
	fillUntilFull(t, c)

	_, err = a.AddPoints(ctx, "q", 1)
	wantServerError(t, "AddPoints", err, rankgenrt.ErrServerFull, "OOM")
	_, err = a.Set(ctx, arena.Entry{PlayerID: "q", Points: 1, ReachedAt: before.ReachedAt})
	wantServerError(t, "Set", err, rankgenrt.ErrServerFull, "OOM")
	_, err = a.AddPointsMany(ctx, []arena.Update[int64]{{PlayerID: "p", Value: 1}})
	wantServerError(t, "AddPointsMany", err, rankgenrt.ErrServerFull, "OOM")
	if !redis.IsOOMError(err) {
		t.Errorf("redis.IsOOMError(%v) = false; want the reply reachable by go-redis's own check", err)
	}
	if got, err := a.Get(ctx, "p"); err != nil || got != before.Entry {
		t.Errorf("Get after the refused writes = %+v, %v; want %+v", got, err, before)
	}
	if n, err := a.Count(ctx); err != nil || n != 1 {
		t.Errorf("Count = %d, %v; want 1 (nothing written)", n, err)
	}
}

// fillUntilFull writes strings until the server refuses even a small one with OOM: chunks of
// 64 KiB, then 1 KiB, then 16 bytes, each size until its first OOM reply (a refused large
// write only says that one did not fit), at most 1,000 writes of each size.
func fillUntilFull(t *testing.T, c *redis.Client) {
	t.Helper()
	n := 0
	for _, size := range []int{64 << 10, 1 << 10, 16} {
		chunk := strings.Repeat("x", size)
		for i := 0; ; i++ {
			if i == 1000 {
				t.Fatalf("no OOM reply after 1,000 writes of %d bytes under maxmemory 2mb", size)
			}
			n++
			err := c.Set(ctx, "fill:"+strconv.Itoa(n), chunk, 0).Err()
			if redis.IsOOMError(err) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("server full after %d writes", n)
}

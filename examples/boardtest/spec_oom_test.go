package boardtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// A board that fills a server (maxmemory, noeviction) can still be shrunk through its own API:
// Remove and Trim declare flags=allow-oom, with or without an expiry, while every write that
// may grow the board is refused as the server refuses it.
func TestFullServerShrinksThroughRemoveAndTrim(t *testing.T) {
	s := redistest.Start(t)
	c := s.Client(t)
	ak, sk := "{arena}", "{season}"
	a, sb := arena.NewBoard(c, ak), season.NewBoard(c, sk)
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for i := range 50 {
		if _, err := a.Set(ctx, arena.Entry{PlayerID: fmt.Sprintf("p%d", i), Points: uint32(i), ReachedAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range [][2]string{{"maxmemory-policy", "noeviction"}, {"maxmemory", "3mb"}} {
		if err := c.ConfigSet(ctx, kv[0], kv[1]).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// Fill the server through the season board, in batches of 500 and then of one, until even
	// one entry is refused.
	n, full := 0, error(nil)
	for size := 500; size > 0 && n < 200000; size /= 500 {
		for full = nil; full == nil && n < 200000; {
			batch := make([]season.Entry, size)
			for i := range batch {
				batch[i] = season.Entry{UserID: fmt.Sprintf("user-%07d-%s", n, strings.Repeat("x", 24)), Points: uint64(n), ReachedAt: t0}
				n++
			}
			_, full = sb.SetMany(ctx, batch)
		}
	}
	var reply redis.Error
	if full == nil || !errors.As(full, &reply) {
		t.Fatalf("after %d entries the server still takes writes (%v): maxmemory not reached", n, full)
	}
	// The server's memory moves a little between calls (buffers freed): keep writing single
	// entries until one is refused, so that the board is surely full before it shrinks.
	var refused error
	for k := 0; k < 1000 && refused == nil; k++ {
		_, refused = sb.Set(ctx, season.Entry{UserID: fmt.Sprintf("new-%d", k), ReachedAt: t0})
	}
	if !errors.Is(refused, rankgenrt.ErrServerFull) {
		t.Fatalf("the full server took 1,000 more Sets, or refused one with %v; want ErrServerFull", refused)
	}
	if _, err := sb.Update(ctx, "new-list", season.AddWins(1), season.AddPoints(1)); !errors.Is(err, rankgenrt.ErrServerFull) {
		t.Errorf("season Update on a full server: %v; want ErrServerFull", err)
	}

	ttl := season.NewBoard(c, sk, season.WithTTL(time.Hour))
	if got, err := ttl.Remove(ctx, "user-0000000-"+strings.Repeat("x", 24), "user-0000001-"+strings.Repeat("x", 24)); err != nil || got != 2 {
		t.Fatalf("season Remove (with a TTL) on a full server = %d, %v; want 2", got, err)
	}
	if got, err := sb.Trim(ctx, 10); err != nil || got < 1000 {
		t.Fatalf("season Trim(10) on a full server = %d, %v; want thousands removed", got, err)
	}
	if got, err := a.Remove(ctx, "p0"); err != nil || got != 1 {
		t.Fatalf("arena Remove on a full server = %d, %v; want 1", got, err)
	}
	if got, err := arena.NewBoard(c, ak, arena.WithTTL(time.Hour)).Trim(ctx, 10); err != nil || got != 39 {
		t.Fatalf("arena Trim(10) (with a TTL) on a full server = %d, %v; want 39", got, err)
	}
	for _, k := range []string{sk, rankgenrt.IndexKey(sk), ak, rankgenrt.MetaKey(ak)} {
		if d := c.PTTL(ctx, k).Val(); d <= 59*time.Minute {
			t.Errorf("PTTL %s = %v after a write with a TTL; want about an hour", k, d)
		}
	}
	if _, err := sb.Set(ctx, season.Entry{UserID: "after", ReachedAt: t0}); err != nil {
		t.Fatalf("Set after shrinking the board: %v", err)
	}
}

// allow-oom is declared by exactly the scripts whose every command the server itself accepts
// when it is out of memory (no denyoom flag, probed with COMMAND INFO): the ones that only
// delete (and reset the expiry of what they keep), besides recording the call's token in the
// ack keys (a few bytes, expiring: exactly-once writes hold on a full server too).
func TestAllowOOMOnlyWhereEveryCommandMay(t *testing.T) {
	c := redistest.Client(t)
	info, err := c.Command(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("..", "generated", "*", "*.rankgen.lua"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no generated libraries: %v", err)
	}
	call := regexp.MustCompile(`(?:redis\.call|many)\('([A-Z]+)', (\w+)`)
	register := regexp.MustCompile(`(?m)^register\('(\w+)', \{([^}]*)\}`)
	deleting := regexp.MustCompile(`^(remove|trim|remove_everywhere)$`)
	for _, file := range files {
		lib, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		at := register.FindAllSubmatchIndex(lib, -1)
		for i, m := range at {
			end := len(lib)
			if i+1 < len(at) {
				end = at[i+1][0]
			}
			op, flags, src := string(lib[m[2]:m[3]]), string(lib[m[4]:m[5]]), lib[m[0]:end]
			f := file + ": " + op
			allow := strings.Contains(flags, "allow-oom")
			if allow != deleting.MatchString(op) {
				t.Errorf("%s: flags {%s}; allow-oom belongs to Remove, Trim and RemoveEverywhere alone", f, flags)
			}
			if !allow {
				continue
			}
			for _, m := range call.FindAllStringSubmatch(string(src), -1) {
				if m[2] == "ack_key" {
					continue // the token's record
				}
				ci := info[strings.ToLower(m[1])]
				if ci == nil || slices.Contains(ci.Flags, "denyoom") {
					t.Errorf("%s (allow-oom) calls %s, which the server refuses when out of memory", f, m[1])
				}
			}
		}
	}
}

package runtime

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// TestComposeLibrary: a layout's part is loaded behind the head, named <stem>_<12 hex digits of
// the SHA-256 of the head and the part> (the stem made safe for Redis), so that a head that
// changes renames every library; the part's functions are named by the head's register.
func TestComposeLibrary(t *testing.T) {
	part := "use_layout{fingerprint = 'f'}\nregister('f', {}, bound(function(KEYS, ARGV) return 1 end))\n"
	src := ComposeLibrary("a-b.c", part)
	want := fmt.Sprintf("a_b_c_%x", sha256.Sum256([]byte(luaHead+"\n"+part)))[:len("a_b_c_")+12]
	lib := NewLayoutLibrary("a-b.c", part)
	if lib.Name != want || lib.Source != src {
		t.Fatalf("NewLayoutLibrary named %q; want %q", lib.Name, want)
	}
	if !strings.HasPrefix(src, "#!lua name="+want+"\nlocal LIBRARY = '"+want+"'\n"+luaHead) || !strings.HasSuffix(src, "\n"+part) {
		t.Fatalf("composed text starts %q", src[:80])
	}
	saved := luaHead
	t.Cleanup(func() { luaHead = saved })
	luaHead += "\n-- another release's head\n"
	if other := NewLayoutLibrary("a-b.c", part); other.Name == lib.Name {
		t.Errorf("a changed head keeps the name %s", other.Name)
	}
}

// TestLayoutLibraryRuns loads a composed library on a real server: the head's wrappers run a
// part's function under the layout it declared, so that a read of another layout's board is
// refused, also when one library holds two layouts' functions and calls alternate between them.
func TestLayoutLibraryRuns(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	fp := func(s string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(redistest.Prefix(t)+s)))[:16] }
	count := func(op, fp string) string {
		return "use_layout{fingerprint = '" + fp + "'}\nregister('" + op + "', {'no-writes'}, checked(function(KEYS, ARGV)\n  return redis.call('ZCARD', KEYS[1])\nend))\n"
	}
	lib := NewLayoutLibrary("t", count("a", fp("a"))+count("b", fp("b")))
	boards := map[string][]string{}
	for _, name := range []string{"a", "b"} {
		board := redistest.Key(t, name)
		boards[name] = []string{board, board + ":meta"}
		if err := c.ZAdd(ctx, board, redis.Z{Score: 1, Member: "x"}).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.Set(ctx, board+":meta", fp(name), 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		for _, call := range []struct{ op, board string }{{"a", "a"}, {"b", "a"}, {"b", "b"}, {"a", "b"}} {
			v, err := CallRO(ctx, c, lib.Function(call.op), boards[call.board])
			if call.op == call.board && (err != nil || v != int64(1)) {
				t.Fatalf("%s of its own board = %v, %v; want 1", call.op, v, err)
			}
			if call.op != call.board && !errors.Is(err, ErrLayoutMismatch) {
				t.Fatalf("%s of layout %s's board: %v, %v; want a layout mismatch", call.op, call.board, v, err)
			}
		}
	}
}

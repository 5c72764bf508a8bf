package redistest

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) { Main(m) }

func TestSharedClient(t *testing.T) {
	ctx := context.Background()
	c := Client(t)
	k := Key(t, "x")
	if !strings.HasPrefix(k, "rgtest:") || strings.ContainsAny(k, "{}*?[]") {
		t.Fatalf("Key = %q: want an rgtest: prefix without hash-tag or glob characters", k)
	}
	if err := c.Set(ctx, k, "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Get(ctx, k).Result(); err != nil || got != "v" {
		t.Fatalf("GET = %q, %v; want v", got, err)
	}
}

func TestPrefixUniquePerTest(t *testing.T) {
	var a, b string
	t.Run("a", func(t *testing.T) { a = Prefix(t) })
	t.Run("b", func(t *testing.T) { b = Prefix(t) })
	p1, p2 := Prefix(t), Prefix(t)
	if a == b || p1 != p2 || p1 == a {
		t.Fatalf("prefixes %q %q %q %q", a, b, p1, p2)
	}
}

func TestStartStop(t *testing.T) {
	s, err := start(false)
	if err != nil {
		t.Fatal(err)
	}
	pid := s.cmd.Process.Pid
	if err := s.Client(t).Ping(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	s.Stop() // idempotent
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("redis-server %d still running after Stop", pid)
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Fatalf("directory %s left behind: %v", s.Dir, err)
	}
}

func TestMissingServer(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(ServerEnv, "")
	_, err := start(false)
	if err == nil || !strings.Contains(err.Error(), "README") {
		t.Fatalf("start without redis-server on PATH: %v; want the install hint", err)
	}
}

func TestCluster(t *testing.T) {
	ctx := context.Background()
	c := StartCluster(t)
	p := Prefix(t)
	err := c.MSet(ctx, "{"+p+"a}:1", "x", "{"+p+"a}:2", "y").Err()
	if err != nil {
		t.Fatalf("MSET in one slot: %v", err)
	}
	// Two keys in different slots, sent to the one node directly (a cluster client would
	// split or refuse them itself).
	err = c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		return n.MSet(ctx, p+"a", "x", p+"b", "y").Err()
	})
	if err == nil || !strings.Contains(err.Error(), "CROSSSLOT") {
		t.Fatalf("MSET across slots: %v; want CROSSSLOT", err)
	}
}

package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterShape: the private cluster has three masters serving all 16384 slots, each slot
// range with one replica linked to its master, and a write through the cluster client reaches
// every master. Its start time is logged.
func TestClusterShape(t *testing.T) {
	SkipClusterIfShort(t)
	t0 := time.Now()
	cl, err := startCluster()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Stop)
	t.Logf("cluster of %d nodes serving in %v", len(cl.Nodes), time.Since(t0))
	pids := make([]int, len(cl.Nodes))
	for i, n := range cl.Nodes {
		pids[i] = n.cmd.Process.Pid
	}
	ctx := context.Background()
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs()})
	defer c.Close()
	slots, err := clusterSlots(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	masters := map[string]bool{}
	covered := 0
	for _, r := range slots {
		covered += r.End - r.Start + 1
		masters[SlotMaster(t, c, int64(r.Start))] = true
	}
	if len(masters) != clusterMasters || covered != 16384 {
		t.Fatalf("slots %+v: %d masters, %d slots; want %d masters, 16384 slots", slots, len(masters), covered, clusterMasters)
	}
	replicas := 0
	for _, n := range cl.Nodes {
		up, err := replicaUp(ctx, n.Client(t))
		if err != nil {
			t.Fatal(err)
		}
		if up {
			replicas++
		}
	}
	if replicas != clusterMasters {
		t.Fatalf("%d replicas linked; want %d", replicas, clusterMasters)
	}
	p := Prefix(t)
	reached := map[string]bool{}
	for i := 0; len(reached) < clusterMasters && i < 1000; i++ {
		k := p + string(rune('a'+i%26)) + strings.Repeat("z", i/26)
		if err := c.Set(ctx, k, "v", 0).Err(); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
		reached[SlotMaster(t, c, c.ClusterKeySlot(ctx, k).Val())] = true
	}
	if len(reached) != clusterMasters {
		t.Fatalf("writes reached %d masters; want %d", len(reached), clusterMasters)
	}
	cl.Stop()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("node %d still running after Stop", pid)
		}
	}
}

// TestClusterGoneAfterPanic: a test binary that panics with a cluster running leaves no node
// behind. It runs this package's test binary again, with a test that starts a cluster, writes
// the nodes' addresses and directories to a file and panics, then checks that no node still
// answers. (Another test binary may start a server on a freed port at once: a server that
// answers there from another directory is not the child's node.)
func TestClusterGoneAfterPanic(t *testing.T) {
	SkipClusterIfShort(t)
	if file := os.Getenv("REDISTEST_PANIC_ADDRS"); file != "" {
		cl, err := startCluster()
		if err != nil {
			t.Fatal(err)
		}
		var list strings.Builder
		for _, n := range cl.Nodes {
			fmt.Fprintf(&list, "%s %s\n", n.Addr, n.Dir)
		}
		if err := os.WriteFile(file, []byte(list.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		panic("a test panics with a cluster running")
	}
	file := t.TempDir() + "/addrs"
	cmd := exec.Command(os.Args[0], "-test.run=^TestClusterGoneAfterPanic$", "-test.count=1")
	cmd.Env = append(os.Environ(), "REDISTEST_PANIC_ADDRS="+file)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "a test panics with a cluster running") {
		t.Fatalf("child: %v; want it to panic:\n%s", err, out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("child wrote no addresses: %v\n%s", err, out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		addr, dir, _ := strings.Cut(line, " ")
		t.Cleanup(func() { _ = os.RemoveAll(dir) }) // the panic left the node's directory
		for {
			conn, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
			if err != nil {
				break // nothing listens there
			}
			_ = conn.Close()
			err = answersAs(context.Background(), addr, dir)
			if errors.Is(err, errNotThatServer) {
				break // another server, started since
			}
			if time.Now().After(deadline) {
				t.Fatalf("node %s still answering 5 s after its test binary panicked (%v)", addr, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

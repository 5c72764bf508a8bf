package redistest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Concurrent starts, in one test binary and across several at once (go test runs packages in
// parallel), must each get a server of their own: no two servers on one port, and no start
// reported ready while its port answers as another server.

const (
	stressProcs   = 4  // test binaries starting servers at once
	stressServers = 10 // single servers each starts, besides one cluster
)

// TestStartManyAtOnce: stressProcs copies of this test binary each start stressServers servers
// and a cluster at once; every node, asked from its own process and then from this one, answers
// with its own directory (CONFIG GET dir), and no address is given to two nodes.
func TestStartManyAtOnce(t *testing.T) {
	SkipClusterIfShort(t)
	if dir := os.Getenv("REDISTEST_STRESS_DIR"); dir != "" {
		stressChild(t, dir)
		return
	}
	dir := t.TempDir()
	children := make([]*exec.Cmd, stressProcs)
	outs := make([]*syncBuffer, stressProcs)
	exited := make([]chan error, stressProcs)
	for i := range children {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStartManyAtOnce$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "REDISTEST_STRESS_DIR="+dir, "REDISTEST_STRESS_CHILD="+strconv.Itoa(i))
		outs[i] = &syncBuffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		setDeathSignal(cmd)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children[i] = cmd
		exited[i] = make(chan error, 1)
		go func() { exited[i] <- cmd.Wait() }()
	}
	release := func() { _ = os.WriteFile(filepath.Join(dir, "go"), nil, 0o644) }
	defer release()

	// Wait until every child has started its nodes and written them down, or has failed.
	nodes := map[string]string{} // address → the directory of the node given it
	owner := map[string]int{}    // address → the child that started it
	deadline := time.Now().Add(90 * time.Second)
	for i := range children {
		file := filepath.Join(dir, fmt.Sprintf("ready-%d", i))
		for {
			data, err := os.ReadFile(file)
			if err == nil {
				for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
					addr, nodeDir, _ := strings.Cut(line, " ")
					if j, dup := owner[addr]; dup {
						t.Errorf("%s was given to a node of child %d and to one of child %d", addr, j, i)
					}
					owner[addr], nodes[addr] = i, nodeDir
				}
				break
			}
			select {
			case err := <-exited[i]:
				t.Fatalf("child %d exited before its nodes were ready (%v):\n%s", i, err, outs[i])
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("child %d: no nodes after 90s:\n%s", i, outs[i])
			}
		}
	}
	if want := stressProcs * (stressServers + 2*clusterMasters); len(owner) != want {
		t.Errorf("%d distinct addresses; want %d", len(owner), want)
	}
	// Every node, asked from here, answers as itself while all of them run.
	ctx := context.Background()
	for addr, nodeDir := range nodes {
		if err := answersAs(ctx, addr, nodeDir); err != nil {
			t.Errorf("child %d's node: %v", owner[addr], err)
		}
	}
	release()
	for i := range children {
		select {
		case err := <-exited[i]:
			if err != nil {
				t.Errorf("child %d: %v\n%s", i, err, outs[i])
			}
		case <-time.After(60 * time.Second):
			t.Errorf("child %d still running 60s after its release:\n%s", i, outs[i])
		}
	}
}

// stressChild is one child of TestStartManyAtOnce: it starts its servers and its cluster at
// once, checks that each answers as itself, lists them in dir, and holds them until the parent
// has checked them too.
func stressChild(t *testing.T, dir string) {
	ctx := context.Background()
	servers := make([]*Server, stressServers)
	errs := make([]error, stressServers+1)
	var cl *Cluster
	var wg sync.WaitGroup
	for i := range servers {
		wg.Add(1)
		go func() { defer wg.Done(); servers[i], errs[i] = start(false) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); cl, errs[stressServers] = startCluster() }()
	wg.Wait()
	for _, s := range servers {
		if s != nil {
			t.Cleanup(s.Stop)
		}
	}
	if cl != nil {
		t.Cleanup(cl.Stop)
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	all := append(append([]*Server(nil), servers...), cl.Nodes...)
	var list strings.Builder
	for _, s := range all {
		if err := answersAs(ctx, s.Addr, s.Dir); err != nil {
			t.Error(err)
		}
		fmt.Fprintf(&list, "%s %s\n", s.Addr, s.Dir)
	}
	if t.Failed() {
		return
	}
	tmp := filepath.Join(dir, "tmp-"+os.Getenv("REDISTEST_STRESS_CHILD"))
	if err := os.WriteFile(tmp, []byte(list.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "ready-"+os.Getenv("REDISTEST_STRESS_CHILD"))); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no release from the parent after 2 minutes")
		}
	}
}

// answersAs checks that the server at addr is the one whose working directory is dir: a server
// started in a directory of its own answers CONFIG GET dir with it (its real path).
func answersAs(ctx context.Context, addr, dir string) error {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	got, err := c.ConfigGet(ctx, "dir").Result()
	if err != nil {
		return fmt.Errorf("%s: CONFIG GET dir: %w", addr, err)
	}
	want, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if got["dir"] != want {
		return fmt.Errorf("%w: %s answers as the server in %q; want the one in %q", errNotThatServer, addr, got["dir"], want)
	}
	return nil
}

// errNotThatServer is answersAs's error for a server other than the one asked for.
var errNotThatServer = errors.New("another server")

// TestStartOnTakenPort: a server started on a port that another server holds (as when another
// process bound it between the reservation and the start) is not reported ready, whatever
// answers there: the start fails with errPortTaken, and the other server runs on.
func TestStartOnTakenPort(t *testing.T) {
	other := Start(t)
	bin, err := serverPath()
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(other.Addr, "127.0.0.1:")
	n, _ := strconv.Atoi(port)
	for _, cluster := range []bool{false, true} {
		ports := []*reservedPort{{port: n}}
		if cluster {
			bus, err := reservePort()
			if err != nil {
				t.Fatal(err)
			}
			defer bus.release()
			ports = append(ports, bus)
		}
		s, err := startOn(bin, ports, defaultNodeTimeout)
		if err == nil {
			s.Stop()
			t.Fatalf("cluster %v: a start on %s, which another server holds, succeeded", cluster, other.Addr)
		}
		if !errors.Is(err, errPortTaken) {
			t.Errorf("cluster %v: %v; want errPortTaken", cluster, err)
		}
	}
	if err := answersAs(context.Background(), other.Addr, other.Dir); err != nil {
		t.Error(err)
	}
}

// TestStartOnTakenBusPort: a cluster node whose bus port another server holds fails to start
// with errPortTaken, and startNode then starts it on other ports.
func TestStartOnTakenBusPort(t *testing.T) {
	other := Start(t)
	bin, err := serverPath()
	if err != nil {
		t.Fatal(err)
	}
	p, err := reservePort()
	if err != nil {
		t.Fatal(err)
	}
	defer p.release()
	_, port, _ := strings.Cut(other.Addr, "127.0.0.1:")
	n, _ := strconv.Atoi(port)
	s, err := startOn(bin, []*reservedPort{p, {port: n}}, defaultNodeTimeout)
	if err == nil {
		s.Stop()
		t.Fatalf("a cluster node whose bus port %d another server holds started", n)
	}
	if !errors.Is(err, errPortTaken) {
		t.Errorf("%v; want errPortTaken", err)
	}
}

// TestPortReservedOnce: a port reserved here is reserved for every other start, in this process
// and in another, until it is released; then it can be reserved again.
func TestPortReservedOnce(t *testing.T) {
	if file := os.Getenv("REDISTEST_LOCK_FILE"); file != "" {
		// The child: try to take the parent's lock, and say whether it could.
		_, ok, err := lockPort(file)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("locked=%v\n", ok)
		return
	}
	const n = 64
	ports := make([]*reservedPort, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); ports[i], errs[i] = reservePort() }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if seen[p.port] {
			t.Errorf("port %d reserved twice", p.port)
		}
		seen[p.port] = true
	}
	file := filepath.Join(portLockDir(), strconv.Itoa(ports[0].port))
	if _, ok, err := lockPort(file); err != nil || ok {
		t.Errorf("port %d, reserved, locked again in this process: ok %v, %v", ports[0].port, ok, err)
	}
	child := func() string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPortReservedOnce$", "-test.count=1")
		cmd.Env = append(os.Environ(), "REDISTEST_LOCK_FILE="+file)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := child(); !strings.Contains(out, "locked=false") {
		t.Errorf("another process took the lock of reserved port %d:\n%s", ports[0].port, out)
	}
	for _, p := range ports {
		p.release()
	}
	if out := child(); !strings.Contains(out, "locked=true") {
		t.Errorf("another process could not take the lock of released port %d:\n%s", ports[0].port, out)
	}
	lock, ok, err := lockPort(file)
	if err != nil || !ok {
		t.Fatalf("released port %d not locked again in this process: ok %v, %v", ports[0].port, ok, err)
	}
	_ = lock.Close()
}

// TestServerEnv: RANKGEN_REDIS_SERVER names the binary the kit starts; a wrong one is reported
// by name, not replaced by the one on PATH.
func TestServerEnv(t *testing.T) {
	bin, err := serverPath()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(ServerEnv, filepath.Join(t.TempDir(), "no-such-redis-server"))
	if s, err := start(false); err == nil {
		s.Stop()
		t.Fatal("a start with a missing RANKGEN_REDIS_SERVER succeeded")
	} else if !strings.Contains(err.Error(), ServerEnv) {
		t.Errorf("error %q does not name %s", err, ServerEnv)
	}
	t.Setenv(ServerEnv, bin)
	s, err := start(false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if s.cmd.Path != bin {
		t.Errorf("started %s; want %s", s.cmd.Path, bin)
	}
}

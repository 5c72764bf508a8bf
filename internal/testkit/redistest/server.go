package redistest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
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

// Server is a private redis-server process listening on a loopback port.
type Server struct {
	Addr string // host:port
	Dir  string // its working directory (a temporary directory, removed by Stop)

	cmd      *exec.Cmd
	out      *syncBuffer     // its log
	ports    []*reservedPort // its client port, and a cluster node's bus port
	exited   chan struct{}
	stopOnce sync.Once
}

// Start starts a private redis-server for this test alone and stops it when the test ends. Use
// it for tests that change server-wide state (SCRIPT FLUSH, CONFIG SET); other tests share the
// server of Main through Client.
func Start(tb testing.TB) *Server {
	tb.Helper()
	s, err := start(false)
	if err != nil {
		tb.Fatalf("redistest: %v", err)
	}
	tb.Cleanup(s.Stop)
	return s
}

// Options returns client options for the server.
func (s *Server) Options() *redis.Options {
	return &redis.Options{Addr: s.Addr}
}

// Client returns a new client of the server, closed when the test ends.
func (s *Server) Client(tb testing.TB) *redis.Client {
	c := redis.NewClient(s.Options())
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// Log returns what the server has written to its log so far.
func (s *Server) Log() string { return s.out.String() }

// Stop kills the server, waits for it to exit, gives its ports back and removes its directory.
// It is idempotent.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		s.kill()
		for _, p := range s.ports {
			p.release()
		}
		_ = os.RemoveAll(s.Dir)
	})
}

// kill SIGKILLs the server and waits until it has exited, keeping its ports reserved and its
// directory.
func (s *Server) kill() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// ServerEnv names the redis-server (or valkey-server) binary the test kit starts, instead of
// the one on PATH: to run the suite on another version, e.g.
// RANKGEN_REDIS_SERVER=/opt/redis-7.4.1/bin/redis-server go test ./...
const ServerEnv = "RANKGEN_REDIS_SERVER"

// CLIEnv names the redis-cli that joins cluster nodes. Unset, it is the redis-cli (or
// valkey-cli) next to $RANKGEN_REDIS_SERVER, or the one on PATH.
const CLIEnv = "RANKGEN_REDIS_CLI"

// serverPath finds redis-server, or explains how to get it.
func serverPath() (string, error) {
	if p := os.Getenv(ServerEnv); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("%s=%q: %w", ServerEnv, p, err)
		}
		return p, nil
	}
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return "", errors.New(InstallHint)
	}
	return p, nil
}

// cliPath finds the redis-cli that goes with serverPath's server.
func cliPath() (string, error) {
	if p := os.Getenv(CLIEnv); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("%s=%q: %w", CLIEnv, p, err)
		}
		return p, nil
	}
	if server := os.Getenv(ServerEnv); server != "" {
		for _, name := range []string{"redis-cli", "valkey-cli"} {
			if p, err := exec.LookPath(filepath.Join(filepath.Dir(server), name)); err == nil {
				return p, nil
			}
		}
	}
	p, err := exec.LookPath("redis-cli")
	if err != nil {
		return "", errors.New("redis-cli is not on PATH: " + InstallHint)
	}
	return p, nil
}

// start starts redis-server on free loopback ports (see ports.go).
func start(cluster bool) (*Server, error) {
	return startNode(cluster, defaultNodeTimeout)
}

// defaultNodeTimeout is cluster-node-timeout of a cluster node: how long a master may be
// unreachable before it is failed over.
const defaultNodeTimeout = 5 * time.Second

// startAttempts bounds the starts of one server whose ports turn out taken by someone else.
const startAttempts = 10

// startNode is start with the cluster-node-timeout of a cluster node. A server whose port was
// taken by another process between its reservation and the server's bind is started again on
// other ports.
func startNode(cluster bool, nodeTimeout time.Duration) (*Server, error) {
	bin, err := serverPath()
	if err != nil {
		return nil, err
	}
	var last error
	for range startAttempts {
		ports, err := reservePorts(cluster)
		if err != nil {
			return nil, err
		}
		s, err := startOn(bin, ports, nodeTimeout)
		if err == nil {
			return s, nil
		}
		for _, p := range ports {
			p.release()
		}
		last = err
		if !errors.Is(err, errPortTaken) {
			break
		}
	}
	return nil, last
}

// reservePorts reserves a client port, and a cluster node's bus port.
func reservePorts(cluster bool) ([]*reservedPort, error) {
	n := 1
	if cluster {
		n = 2
	}
	ports := make([]*reservedPort, 0, n)
	for range n {
		p, err := reservePort()
		if err != nil {
			for _, p := range ports {
				p.release()
			}
			return nil, err
		}
		ports = append(ports, p)
	}
	return ports, nil
}

// errPortTaken is startOn's error when a port of the server was bound by someone else first.
var errPortTaken = errors.New("port taken by another process")

// startOn starts redis-server on ports[0], with cluster mode and ports[1] as its cluster bus
// port when there are two. On success the server owns ports; on error the caller keeps them.
func startOn(bin string, ports []*reservedPort, nodeTimeout time.Duration) (*Server, error) {
	dir, err := os.MkdirTemp("", "redistest-")
	if err != nil {
		return nil, err
	}
	args := []string{
		"--port", strconv.Itoa(ports[0].port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--dir", dir,
		"--logfile", "",
		"--loglevel", "warning",
	}
	if len(ports) > 1 {
		args = append(args,
			"--cluster-enabled", "yes",
			// The bus port is reserved too: the default, port + 10000, may be taken or above 65535.
			"--cluster-port", strconv.Itoa(ports[1].port),
			"--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", strconv.FormatInt(nodeTimeout.Milliseconds(), 10),
			// A replica syncs at once, not after the default 5 s wait for more replicas, and its
			// master pings it every second (not 10), so that the replica's offset moves from 0
			// and the cluster lists it as available within a second.
			"--repl-diskless-sync-delay", "0",
			"--repl-ping-replica-period", "1")
	}
	s := &Server{
		Addr:   net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0].port)),
		Dir:    dir,
		cmd:    exec.Command(bin, args...),
		out:    &syncBuffer{},
		exited: make(chan struct{}),
	}
	s.cmd.Dir = dir
	s.cmd.Stdout = s.out
	s.cmd.Stderr = s.out
	setDeathSignal(s.cmd) // killed with the test binary, even when a test panics or times out
	if err := s.cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	go func() {
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(ports, 10*time.Second); err != nil {
		s.Stop() // the ports are not s's yet: Stop leaves them to the caller
		return nil, fmt.Errorf("redis-server on %s: %w\n%s", s.Addr, err, s.Log())
	}
	s.ports = ports
	return s, nil
}

// waitReady waits until the server on s.Addr answers, and is s: a port can be bound by another
// process between its reservation and the server's bind, and the server there would answer in
// its place. The server's working directory, unique to it, tells (CONFIG GET dir).
func (s *Server) waitReady(ports []*reservedPort, timeout time.Duration) error {
	want, err := filepath.EvalSymlinks(s.Dir) // the server reports its directory's real path
	if err != nil {
		return err
	}
	// Dialing first: a go-redis pool whose dials were refused backs off for a second before
	// dialing again.
	deadline := time.Now().Add(timeout)
	for {
		if err := s.exitError(ports); err != nil {
			return err
		}
		conn, err := net.DialTimeout("tcp", s.Addr, 200*time.Millisecond)
		if err == nil {
			_ = conn.Close()
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not listening after %v: %w", timeout, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer c.Close()
	for {
		if err := s.exitError(ports); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		got, err := c.ConfigGet(ctx, "dir").Result()
		cancel()
		if err == nil {
			if got["dir"] == want {
				return nil
			}
			// Another server holds the port: this one cannot bind it and will exit.
			return fmt.Errorf("%w: the server answering there runs in %q, not in %q", errPortTaken, got["dir"], want)
		}
		if time.Now().After(deadline) {
			// Something else may hold the port (another server's cluster bus, say); this
			// server, refused the bind, exits and is reported as such.
			return fmt.Errorf("no CONFIG GET reply after %v: %w", timeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// exitError reports, once the server has exited, why: errPortTaken when its bind failed (the
// port was taken between its reservation and the server's start), which its log says with the
// C library's text for EADDRINUSE (glibc's or musl's), or which shows as a port that cannot be
// bound now.
func (s *Server) exitError(ports []*reservedPort) error {
	if !s.hasExited() {
		return nil
	}
	if log := strings.ToLower(s.Log()); strings.Contains(log, "address already in use") || strings.Contains(log, "address in use") {
		return fmt.Errorf("%w (%v)", errPortTaken, s.cmd.ProcessState)
	}
	for _, p := range ports {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)))
		if err != nil {
			return fmt.Errorf("%w: port %d: %v (%v)", errPortTaken, p.port, err, s.cmd.ProcessState)
		}
		_ = l.Close()
	}
	return fmt.Errorf("exited: %v", s.cmd.ProcessState)
}

// hasExited reports whether the server process has exited.
func (s *Server) hasExited() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a process's stdout and stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

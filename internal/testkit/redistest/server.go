package redistest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
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
	out      *syncBuffer // its log
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

// Stop kills the server, waits for it to exit and removes its directory. It is idempotent.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		if s.cmd.Process != nil {
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
		_ = os.RemoveAll(s.Dir)
	})
}

// serverPath finds redis-server, or explains how to get it.
func serverPath() (string, error) {
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return "", errors.New(InstallHint)
	}
	return p, nil
}

// start starts redis-server on a free loopback port, retrying with another port when the one
// picked was taken in the meantime.
func start(cluster bool) (*Server, error) {
	return startNode(cluster, defaultNodeTimeout)
}

// defaultNodeTimeout is cluster-node-timeout of a cluster node: how long a master may be
// unreachable before it is failed over.
const defaultNodeTimeout = 5 * time.Second

// startNode is start with the cluster-node-timeout of a cluster node.
func startNode(cluster bool, nodeTimeout time.Duration) (*Server, error) {
	bin, err := serverPath()
	if err != nil {
		return nil, err
	}
	var last error
	for range 5 {
		s, err := startOnce(bin, cluster, nodeTimeout)
		if err == nil {
			return s, nil
		}
		last = err
		if !strings.Contains(err.Error(), "in use") {
			break
		}
	}
	return nil, last
}

func startOnce(bin string, cluster bool, nodeTimeout time.Duration) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "redistest-")
	if err != nil {
		return nil, err
	}
	args := []string{
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--dir", dir,
		"--logfile", "",
		"--loglevel", "warning",
	}
	if cluster {
		// The bus port is picked too: the default, port + 10000, may be taken or above 65535.
		bus, err := freePort()
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		args = append(args,
			"--cluster-enabled", "yes",
			"--cluster-port", strconv.Itoa(bus),
			"--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", strconv.FormatInt(nodeTimeout.Milliseconds(), 10),
			// A replica syncs at once, not after the default 5 s wait for more replicas, and its
			// master pings it every second (not 10), so that the replica's offset moves from 0
			// and the cluster lists it as available within a second.
			"--repl-diskless-sync-delay", "0",
			"--repl-ping-replica-period", "1")
	}
	s := &Server{
		Addr:   net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
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
	if err := s.waitReady(10 * time.Second); err != nil {
		s.Stop()
		return nil, fmt.Errorf("redis-server on %s: %w\n%s", s.Addr, err, s.Log())
	}
	return s, nil
}

// waitReady waits until the server accepts connections, then until it answers PING. (Dialing
// first: a go-redis pool whose dials were refused backs off for a second before dialing again.)
func (s *Server) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if err := s.exitError(); err != nil {
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
		if err := s.exitError(); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no PING reply after %v: %w", timeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// exitError reports, once the server has exited, why.
func (s *Server) exitError() error {
	select {
	case <-s.exited:
		if strings.Contains(s.Log(), "Address already in use") {
			return errors.New("port in use")
		}
		return fmt.Errorf("exited: %v", s.cmd.ProcessState)
	default:
		return nil
	}
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
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

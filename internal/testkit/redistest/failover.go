package redistest

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Failover tests kill or fail over the masters of a cluster of their own: NewCluster.

// FailoverNodeTimeout is the cluster-node-timeout of the clusters NewCluster starts: a master
// unreachable this long is failed over, so a test sees its replica promoted within seconds.
const FailoverNodeTimeout = time.Second

// NewCluster starts a private cluster for this test alone (never the shared one, nor
// REDIS_CLUSTER_ADDRS): three masters with a replica each and a short cluster-node-timeout
// (FailoverNodeTimeout), for tests that kill or fail over its nodes. Its nodes are killed when
// the test ends, or with the test binary when a test panics. Under go test -short it skips
// the test (SkipClusterIfShort).
func NewCluster(tb testing.TB) *Cluster {
	tb.Helper()
	SkipClusterIfShort(tb)
	cl, err := startClusterWith(FailoverNodeTimeout)
	if err != nil {
		tb.Fatalf("redistest: %v", err)
	}
	tb.Cleanup(cl.Stop)
	return cl
}

// Client returns a new client of the cluster, closed when the test ends.
func (cl *Cluster) Client(tb testing.TB, edit func(*redis.ClusterOptions)) *redis.ClusterClient {
	opts := &redis.ClusterOptions{Addrs: cl.Addrs()}
	if edit != nil {
		edit(opts)
	}
	c := redis.NewClusterClient(opts)
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// Node returns the node listening on addr, or nil.
func (cl *Cluster) Node(addr string) *Server {
	for _, n := range cl.Nodes {
		if n.Addr == addr {
			return n
		}
	}
	return nil
}

// Shard returns the master that serves slot now and its replica, as a live node reports them
// (CLUSTER SLOTS: the range's master, then its replicas).
func (cl *Cluster) Shard(ctx context.Context, slot int64) (master, replica *Server, err error) {
	for _, n := range cl.live() {
		c := redis.NewClient(n.Options())
		slots, err := clusterSlots(ctx, c)
		_ = c.Close()
		if err != nil {
			continue
		}
		for _, r := range slots {
			if slot < int64(r.Start) || slot > int64(r.End) || len(r.Nodes) == 0 {
				continue
			}
			master = cl.Node(r.Nodes[0].Addr)
			replica = nil
			for _, rn := range r.Nodes[1:] {
				if node := cl.Node(rn.Addr); node != nil {
					replica = node
				}
			}
			if master != nil {
				return master, replica, nil
			}
		}
	}
	return nil, nil, fmt.Errorf("no live node reports the master of slot %d", slot)
}

// live returns the nodes that have not been stopped.
func (cl *Cluster) live() []*Server {
	var out []*Server
	for _, n := range cl.Nodes {
		if !n.hasExited() {
			out = append(out, n)
		}
	}
	return out
}

// Kill SIGKILLs node (by its pid) and waits until it has exited. Its ports stay reserved until
// the cluster is stopped: the cluster's clients may still dial its address, and must not meet
// another test's server there.
func (cl *Cluster) Kill(node *Server) { node.kill() }

// WaitMaster waits until node reports itself a master, and every live node reports the
// cluster ok with all 16384 slots served by online masters.
func (cl *Cluster) WaitMaster(ctx context.Context, node *Server, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := cl.masterServing(ctx, node)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not serving as a master after %v: %w", node.Addr, timeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (cl *Cluster) masterServing(ctx context.Context, node *Server) error {
	c := redis.NewClient(node.Options())
	role, err := c.Do(ctx, "ROLE").Slice()
	_ = c.Close()
	if err != nil {
		return err
	}
	if len(role) == 0 || role[0] != "master" {
		return errors.New("not a master yet")
	}
	for _, n := range cl.live() {
		c := redis.NewClient(n.Options())
		err := cl.nodeServing(ctx, c)
		_ = c.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", n.Addr, err)
		}
	}
	return nil
}

// Freeze stops node with SIGSTOP: it neither reads nor answers until Thaw, as a node stalled
// by its host.
func (cl *Cluster) Freeze(node *Server) error { return node.cmd.Process.Signal(syscall.SIGSTOP) }

// Thaw resumes a node stopped by Freeze (SIGCONT).
func (cl *Cluster) Thaw(node *Server) error { return node.cmd.Process.Signal(syscall.SIGCONT) }

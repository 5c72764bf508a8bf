package redistest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a private one-node Redis Cluster: a cluster-enabled redis-server that owns all 16384
// hash slots. It enforces the cluster rules on keys (CROSSSLOT, shebang-declared keys) exactly as
// a many-node cluster does, without the cost of starting one.
type Cluster struct {
	*Server
}

// StartCluster returns a client of a private one-node Redis Cluster, closed when the test
// ends. Under Main, one cluster node is started on first use and shared by the package's tests
// (a fresh node takes about two seconds to declare itself writable), which must then confine
// themselves to keys under Prefix; it is stopped when the tests end. Without Main, each call
// starts a node of its own, stopped when the test ends.
//
// When REDIS_CLUSTER_ADDRS is set (comma-separated host:port seeds), it uses that cluster
// instead, and deletes the test's keys afterwards.
func StartCluster(tb testing.TB) *redis.ClusterClient {
	tb.Helper()
	var opts *redis.ClusterOptions
	external := false
	switch addrs := os.Getenv("REDIS_CLUSTER_ADDRS"); {
	case addrs != "":
		opts = &redis.ClusterOptions{Addrs: strings.Split(addrs, ",")}
		external = true
	case shared.main:
		sharedCluster.once.Do(func() { sharedCluster.c, sharedCluster.err = startCluster() })
		if sharedCluster.err != nil {
			tb.Fatalf("redistest: %v", sharedCluster.err)
		}
		opts = &redis.ClusterOptions{Addrs: []string{sharedCluster.c.Addr}}
	default:
		cl, err := startCluster()
		if err != nil {
			tb.Fatalf("redistest: %v", err)
		}
		tb.Cleanup(cl.Stop)
		opts = &redis.ClusterOptions{Addrs: []string{cl.Addr}}
	}
	c := redis.NewClusterClient(opts)
	tb.Cleanup(func() { _ = c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		tb.Fatalf("redistest: cluster %v: %v", opts.Addrs, err)
	}
	if external {
		prefix := Prefix(tb)
		tb.Cleanup(func() { deleteClusterKeys(tb, c, prefix) })
	}
	return c
}

var sharedCluster struct {
	once sync.Once
	c    *Cluster
	err  error
}

// stopSharedCluster stops the shared cluster node, if one was started.
func stopSharedCluster() {
	if sharedCluster.c != nil {
		sharedCluster.c.Stop()
	}
}

func startCluster() (*Cluster, error) {
	s, err := start(true)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	c := redis.NewClient(s.Options())
	defer c.Close()
	if err := c.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", 0, 16383).Err(); err != nil {
		s.Stop()
		return nil, fmt.Errorf("CLUSTER ADDSLOTSRANGE on %s: %w", s.Addr, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := c.ClusterInfo(ctx).Result()
		if err == nil && strings.Contains(info, "cluster_state:ok") {
			return &Cluster{s}, nil
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("cluster %s not ok after 10s: %v %s", s.Addr, err, info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func deleteClusterKeys(tb testing.TB, c *redis.ClusterClient, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		iter := n.Scan(ctx, 0, "*"+prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			if err := n.Unlink(ctx, iter.Val()).Err(); err != nil {
				return err
			}
		}
		return iter.Err()
	})
	if err != nil {
		tb.Errorf("redistest: cleaning up cluster keys %q*: %v", prefix, err)
	}
}

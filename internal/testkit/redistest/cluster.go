package redistest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a private Redis Cluster on loopback: three masters, each with one replica, made
// by redis-cli --cluster create from six cluster-enabled redis-servers. Keys spread over the
// masters, so a test meets MOVED redirections, per-master script caches and the cluster rules
// on keys (CROSSSLOT, shebang-declared keys) as in production.
type Cluster struct {
	Nodes []*Server // every node, masters and replicas
}

// clusterMasters is how many masters a private cluster has; each gets one replica.
const clusterMasters = 3

// Addrs returns the address of every node.
func (cl *Cluster) Addrs() []string {
	addrs := make([]string, len(cl.Nodes))
	for i, n := range cl.Nodes {
		addrs[i] = n.Addr
	}
	return addrs
}

// Stop kills every node (each by its own pid) and removes their directories.
func (cl *Cluster) Stop() {
	for _, n := range cl.Nodes {
		n.Stop()
	}
}

// StartCluster returns a client of a private Redis Cluster (see Cluster), closed when the test
// ends. Under Main, one cluster is started on first use and shared by the package's tests
// (starting one takes two to three seconds), which must then confine themselves to keys under
// Prefix; it is stopped when the tests end. Without Main, each call starts a cluster of its
// own, stopped when the test ends. Its nodes are killed with the test binary, also when a test
// panics or times out.
//
// When REDIS_CLUSTER_ADDRS is set (comma-separated host:port seeds), it uses that cluster
// instead, and deletes the test's keys afterwards. Otherwise, under go test -short, it skips
// the test (SkipClusterIfShort).
func StartCluster(tb testing.TB) *redis.ClusterClient {
	tb.Helper()
	return StartClusterWith(tb, nil)
}

// StartClusterWith is StartCluster with the client's options changed by edit (e.g. PoolSize).
func StartClusterWith(tb testing.TB, edit func(*redis.ClusterOptions)) *redis.ClusterClient {
	tb.Helper()
	var opts *redis.ClusterOptions
	external := false
	switch addrs := os.Getenv("REDIS_CLUSTER_ADDRS"); {
	case addrs != "":
		opts = &redis.ClusterOptions{Addrs: strings.Split(addrs, ",")}
		external = true
	case shared.main:
		SkipClusterIfShort(tb)
		sharedCluster.once.Do(func() { sharedCluster.c, sharedCluster.err = startCluster() })
		if sharedCluster.err != nil {
			tb.Fatalf("redistest: %v", sharedCluster.err)
		}
		opts = &redis.ClusterOptions{Addrs: sharedCluster.c.Addrs()}
	default:
		SkipClusterIfShort(tb)
		cl, err := startCluster()
		if err != nil {
			tb.Fatalf("redistest: %v", err)
		}
		tb.Cleanup(cl.Stop)
		opts = &redis.ClusterOptions{Addrs: cl.Addrs()}
	}
	if edit != nil {
		edit(opts)
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

// SkipClusterIfShort skips the test under go test -short, which starts no Redis Cluster
// (six servers, seconds to start): the short run tests on the single server, the full suite on
// both (Targets).
func SkipClusterIfShort(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("redistest: starts a Redis Cluster; skipped with -short")
	}
}

var sharedCluster struct {
	once sync.Once
	c    *Cluster
	err  error
}

// stopSharedCluster stops the shared cluster, if one was started.
func stopSharedCluster() {
	if sharedCluster.c != nil {
		sharedCluster.c.Stop()
	}
}

// startCluster starts the nodes, joins them with redis-cli and waits until the cluster serves
// every slot, each with a replica.
func startCluster() (*Cluster, error) {
	return startClusterWith(defaultNodeTimeout)
}

// startClusterWith is startCluster with the nodes' cluster-node-timeout.
func startClusterWith(nodeTimeout time.Duration) (*Cluster, error) {
	cl, err := startNodes(2*clusterMasters, nodeTimeout)
	if err != nil {
		return nil, err
	}
	if err := cl.create(); err != nil {
		cl.Stop()
		return nil, err
	}
	if err := cl.waitServing(20 * time.Second); err != nil {
		cl.Stop()
		return nil, err
	}
	return cl, nil
}

// startNodes starts n cluster-enabled redis-servers at once.
func startNodes(n int, nodeTimeout time.Duration) (*Cluster, error) {
	cl := &Cluster{Nodes: make([]*Server, n)}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl.Nodes[i], errs[i] = startNode(true, nodeTimeout)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, s := range cl.Nodes {
			if s != nil {
				s.Stop()
			}
		}
		return nil, err
	}
	return cl, nil
}

// create joins the nodes into a cluster: redis-cli assigns the slots to the first masters and
// a replica to each.
func (cl *Cluster) create() error {
	bin, err := cliPath()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := append([]string{"--cluster", "create"}, cl.Addrs()...)
	args = append(args, "--cluster-replicas", "1", "--cluster-yes")
	cmd := exec.CommandContext(ctx, bin, args...)
	setDeathSignal(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("redis-cli --cluster create: %w\n%s", err, out)
	}
	return nil
}

// waitServing waits until every node reports cluster_state:ok and a slot map that covers all
// 16384 slots, and every replica's link to its master is up.
func (cl *Cluster) waitServing(timeout time.Duration) error {
	ctx := context.Background()
	deadline := time.Now().Add(timeout)
	for {
		err := cl.serving(ctx)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster %v not serving after %v: %w", cl.Addrs(), timeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serving reports why the cluster does not serve every slot with a replica yet, or nil.
func (cl *Cluster) serving(ctx context.Context) error {
	replicas := 0
	for _, n := range cl.Nodes {
		c := redis.NewClient(n.Options())
		err := cl.nodeServing(ctx, c)
		if err == nil {
			var up bool
			up, err = replicaUp(ctx, c)
			if up {
				replicas++
			}
		}
		_ = c.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", n.Addr, err)
		}
	}
	if want := len(cl.Nodes) - clusterMasters; replicas != want {
		return fmt.Errorf("%d of %d replicas linked to their master", replicas, want)
	}
	return nil
}

// nodeServing reports whether node c says the cluster is ok and maps all 16384 slots to
// masters that are live nodes of cl.
//
// The slot map is CLUSTER SLOTS's, not CLUSTER SHARDS's: after a failover, Redis 7.2 and 7.4
// list the promoted replica's shard in CLUSTER SHARDS with no slots (fixed in 8.0).
func (cl *Cluster) nodeServing(ctx context.Context, c *redis.Client) error {
	info, err := c.ClusterInfo(ctx).Result()
	if err != nil {
		return err
	}
	if !strings.Contains(info, "cluster_state:ok") {
		return errors.New("cluster_state not ok")
	}
	slots, err := clusterSlots(ctx, c)
	if err != nil {
		return err
	}
	live := map[string]bool{}
	for _, n := range cl.live() {
		live[n.Addr] = true
	}
	covered := 0
	var gone []string
	for _, r := range slots {
		if len(r.Nodes) == 0 || !live[r.Nodes[0].Addr] { // the first node is the range's master
			gone = append(gone, fmt.Sprintf("%d-%d", r.Start, r.End))
			continue
		}
		covered += r.End - r.Start + 1
	}
	if covered != 16384 {
		if len(gone) > 0 {
			return fmt.Errorf("%d of 16384 slots covered by live masters (slots %s mapped to a stopped node)", covered, strings.Join(gone, ","))
		}
		return fmt.Errorf("%d of 16384 slots covered", covered)
	}
	return nil
}

// clusterSlots is CLUSTER SLOTS, parsed by go-redis, from c (a node's or a cluster's client).
// go-redis marks the method deprecated in favour of CLUSTER SHARDS, which Redis 7.2 and 7.4
// get wrong after a failover (nodeServing).
func clusterSlots(ctx context.Context, c interface {
	ClusterSlots(context.Context) *redis.ClusterSlotsCmd
}) ([]redis.ClusterSlot, error) {
	return c.ClusterSlots(ctx).Result()
}

// replicaUp reports whether node c is a replica whose link to its master is up, from ROLE's
// reply: ["slave", host, port, "connected", offset] on a linked replica.
func replicaUp(ctx context.Context, c *redis.Client) (bool, error) {
	role, err := c.Do(ctx, "ROLE").Slice()
	if err != nil {
		return false, err
	}
	if len(role) == 0 || role[0] != "slave" {
		return false, nil
	}
	return len(role) >= 4 && role[3] == "connected", nil
}

// SlotMaster returns the address (host:port) of the master that serves slot, from the cluster's
// CLUSTER SLOTS reply.
func SlotMaster(tb testing.TB, c *redis.ClusterClient, slot int64) string {
	tb.Helper()
	slots, err := clusterSlots(context.Background(), c)
	if err != nil {
		tb.Fatalf("redistest: CLUSTER SLOTS: %v", err)
	}
	for _, r := range slots {
		if int64(r.Start) <= slot && slot <= int64(r.End) && len(r.Nodes) > 0 {
			return r.Nodes[0].Addr // the first node is the range's master
		}
	}
	tb.Fatalf("redistest: no master serves slot %d", slot)
	return ""
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

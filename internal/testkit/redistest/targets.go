package redistest

import (
	"flag"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Target is one of the deployments a board test runs against: the shared single server, or
// the shared private Redis Cluster (three masters with a replica each, or REDIS_CLUSTER_ADDRS).
// The same test code runs on both; only the client differs.
type Target struct {
	Name    string // "single" or "cluster": the subtest's name
	Cluster bool
	Client  redis.UniversalClient
}

// Targets are the deployments every board test runs against, "single" then "cluster"; under
// go test -short the single server alone, so that the short run starts no cluster. Keys made
// by Key or under Prefix spread over the cluster's masters test by test; a board's keys share
// its key's hash slot (see rankgenrt.SideKey), so its multi-key scripts run there.
func Targets(tb testing.TB) []Target {
	tb.Helper()
	single := Target{Name: "single", Client: Client(tb)}
	if testing.Short() {
		return []Target{single}
	}
	return []Target{single, {Name: "cluster", Cluster: true, Client: StartCluster(tb)}}
}

// RunTargets runs f as one subtest per target ("single", "cluster"; "single" alone under -short).
func RunTargets(t *testing.T, f func(t *testing.T, tg Target)) {
	t.Helper()
	for _, tg := range Targets(t) {
		t.Run(tg.Name, func(t *testing.T) { f(t, tg) })
	}
}

// WithPoolSize returns a new client of the target with n connections per node, closed when
// the test ends (for tests that run more goroutines than the default pool serves).
func (tg Target) WithPoolSize(tb testing.TB, n int) redis.UniversalClient {
	tb.Helper()
	if tg.Cluster {
		return StartClusterWith(tb, func(o *redis.ClusterOptions) { o.PoolSize = n })
	}
	return ClientWith(tb, func(o *redis.Options) { o.PoolSize = n })
}

var clusterFull = flag.Bool("cluster.full", false,
	"run the cluster variants of the board tests at the single server's full size")

// Size is how many operations (entries, steps, seeds) a test runs on the target: full on the
// single server, and on the cluster too with -cluster.full; else trimmed, so that the default
// suite (both targets) stays within its time budget. Under go test -short, trimmed everywhere.
func (tg Target) Size(full, trimmed int) int {
	if testing.Short() || tg.Cluster && !*clusterFull {
		return trimmed
	}
	return full
}

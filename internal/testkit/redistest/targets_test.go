package redistest

import (
	"context"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestTargets: RunTargets runs its function on the shared server, then on the shared cluster
// (not under -short), as subtests named after them; Size trims the cluster's count only (every count under -short).
func TestTargets(t *testing.T) {
	ctx := context.Background()
	var ran []string
	RunTargets(t, func(t *testing.T, tg Target) {
		ran = append(ran, t.Name())
		_, isCluster := tg.Client.(*redis.ClusterClient)
		if isCluster != tg.Cluster {
			t.Errorf("%s: client %T, Cluster %v", tg.Name, tg.Client, tg.Cluster)
		}
		if err := tg.Client.Set(ctx, Key(t, "k"), "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		want := 10
		if testing.Short() || tg.Cluster && !*clusterFull {
			want = 3
		}
		if got := tg.Size(10, 3); got != want {
			t.Errorf("%s: Size(10, 3) = %d; want %d", tg.Name, got, want)
		}
		if c := tg.WithPoolSize(t, 7); c.Ping(ctx).Err() != nil {
			t.Errorf("%s: a client with a pool of 7 does not answer", tg.Name)
		}
	})
	want := []string{"TestTargets/single", "TestTargets/cluster"}
	if testing.Short() {
		want = want[:1]
	}
	if !slices.Equal(ran, want) {
		t.Fatalf("ran %v; want %v", ran, want)
	}
}

package runtime

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

func TestWaitReplicasTimeout(t *testing.T) {
	for _, tc := range []struct {
		in, want time.Duration
	}{{0, time.Millisecond}, {-time.Second, time.Millisecond}, {1500 * time.Microsecond, 2 * time.Millisecond}, {time.Second, time.Second}} {
		if got := WaitReplicas(1, tc.in).wait; got != tc.want {
			t.Errorf("WaitReplicas(1, %v) waits %v; want %v (WAIT 0 would block forever)", tc.in, got, tc.want)
		}
	}
	if !WaitReplicas(0, time.Second).IsZero() || !(Replicas{}).IsZero() || WaitReplicas(2, 0).IsZero() {
		t.Error("IsZero: want true for 0 replicas only")
	}
}

// counterScript increments KEYS[1]; its library is unique per test run, so no server has it
// and RunWriteWait's first FCALL finds the function missing.
func counterScript(t *testing.T) *Function {
	return testFunction(t, "return redis.call('INCR', KEYS[1])", "")
}

// TestRunWriteWaitSingle: on a server without replicas the write is applied and its WAIT for
// one replica times out: a *ReplicationError matching ErrNotReplicated, with the token and the
// count; a script error reply stays the script's error. A Ring is refused before sending.
func TestRunWriteWaitSingle(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	k := redistest.Key(t, "n")
	v, err := RunWriteWait(ctx, c, counterScript(t), []string{k}, "tok-1", WaitReplicas(1, 20*time.Millisecond))
	var re *ReplicationError
	if !errors.Is(err, ErrNotReplicated) || !errors.As(err, &re) || re.Token != "tok-1" || re.Want != 1 || re.Got != 0 {
		t.Fatalf("RunWriteWait without replicas = %v, %v; want a ReplicationError 0 of 1", v, err)
	}
	if n, _ := c.Get(ctx, k).Int(); n != 1 || v != int64(1) {
		t.Fatalf("counter %d, reply %v; want the write applied once", n, v)
	}
	if v, err := RunWriteWait(ctx, c, counterScript(t), []string{k}, "tok-2", WaitReplicas(0, time.Second)); err != nil || v != int64(2) {
		t.Fatalf("RunWriteWait waiting for no replica = %v, %v; want 2", v, err)
	}
	bad := testFunction(t, "return redis.error_reply('RANKGEN_OVERFLOW field=X')", "")
	if _, err := RunWriteWait(ctx, c, bad, []string{k}, "tok-3", WaitReplicas(1, 20*time.Millisecond)); !errors.Is(err, ErrOverflow) || errors.Is(err, ErrNotReplicated) {
		t.Fatalf("script error under WAIT: %v; want ErrOverflow alone", err)
	}
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}})
	defer ring.Close()
	if _, err := RunWriteWait(ctx, ring, counterScript(t), []string{k}, "tok-4", WaitReplicas(1, time.Millisecond)); err == nil {
		t.Fatal("RunWriteWait on a Ring: want an error")
	}
}

// TestRunWriteWaitCluster: on the cluster the script and its WAIT reach the master of the key's
// slot, whose replica acknowledges: no error, for keys on every master.
func TestRunWriteWaitCluster(t *testing.T) {
	ctx := context.Background()
	c := redistest.StartCluster(t)
	s := counterScript(t)
	masters := map[string]bool{}
	for i := 0; len(masters) < 3 && i < 200; i++ {
		k := redistest.Key(t, strconv.Itoa(i))
		v, err := RunWriteWait(ctx, c, s, []string{k}, "tok", WaitReplicas(1, 5*time.Second))
		if err != nil || v != int64(1) {
			t.Fatalf("RunWriteWait on %s = %v, %v; want 1 acknowledged by the replica", k, v, err)
		}
		masters[redistest.SlotMaster(t, c, c.ClusterKeySlot(ctx, k).Val())] = true
	}
	if len(masters) != 3 {
		t.Fatalf("keys reached %d masters; want 3", len(masters))
	}
	_, err := RunWriteWait(ctx, c, s, []string{redistest.Key(t, "x")}, "tok", WaitReplicas(2, 20*time.Millisecond))
	var re *ReplicationError
	if !errors.As(err, &re) || re.Got != 1 || re.Want != 2 {
		t.Fatalf("waiting for 2 replicas of a master that has 1: %v; want a ReplicationError 1 of 2", err)
	}
}

// TestRunWriteWaitAckKey: a write that waits for replicas passes its token's ack key third, as
// one that does not wait does (RunWrite): the board's scripts refuse any other key there
// (RANKGEN_BAD_ACK_KEY), so a board made WithReplicas would refuse every write. Single server
// (whose WAIT times out after the write) and cluster (whose replica acknowledges).
func TestRunWriteWaitAckKey(t *testing.T) {
	ctx := context.Background()
	s := testFunction(t, "return KEYS[3]", "")
	for _, target := range []struct {
		name string
		c    redis.UniversalClient
	}{{"single", redistest.Client(t)}, {"cluster", redistest.StartCluster(t)}} {
		t.Run(target.name, func(t *testing.T) {
			key := redistest.Key(t, "{b}")
			keys := []string{key, SideKey(key, "meta"), AckBase(key), FenceKey(key)}
			want := AckKey(AckBase(key), "tok-9")
			if v, err := RunWrite(ctx, target.c, s, keys, "tok-9"); err != nil || v != want {
				t.Fatalf("RunWrite passed %v (%v); want %q", v, err, want)
			}
			v, err := RunWriteWait(ctx, target.c, s, keys, "tok-9", WaitReplicas(1, 20*time.Millisecond))
			if v != want || (err != nil && !errors.Is(err, ErrNotReplicated)) {
				t.Fatalf("RunWriteWait passed %v (%v); want %q", v, err, want)
			}
			if keys[2] != AckBase(key) {
				t.Fatalf("RunWriteWait changed the caller's keys: %q", keys[2])
			}
		})
	}
}

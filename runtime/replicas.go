package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Writes that wait for replicas.
//
// Redis replicates asynchronously: a write is acknowledged once the master has applied it, and a
// failover that promotes a replica which had not received it yet loses it. A board made with
// Replicas sends WAIT after every write script, on the same connection of the master that ran
// it, in the same round trip, and reports a write that fewer replicas acknowledged in time as
// a *ReplicationError. WAIT cannot run inside a script, and on a Cluster a keyless WAIT is not
// routed by key, so the script and its WAIT go to the master of the board's slot as one
// pipeline of that node's own client.

// ErrNotReplicated: the write was applied by the master, but fewer replicas than asked
// acknowledged it before the timeout. It may or may not survive a failover. Resending it with
// its token (see ReplicationError) applies nothing again and waits again.
var ErrNotReplicated = errors.New("rankgen: write not acknowledged by enough replicas")

// ReplicationError is the error of a write that the master applied but not enough replicas
// acknowledged in time. It matches ErrNotReplicated with errors.Is.
type ReplicationError struct {
	Token string        // the write's idempotency key: resend with WithIdempotencyKey(ctx, Token)
	Want  int           // replicas asked for
	Got   int64         // replicas that acknowledged the write within Wait
	Wait  time.Duration // the timeout
	Err   error         // WAIT's own error, when it failed rather than timed out
}

func (e *ReplicationError) Error() string {
	msg := fmt.Sprintf("rankgen: write applied by the master but acknowledged by %d of %d replicas within %v; it may not survive a failover (resend with idempotency key %q to wait again)",
		e.Got, e.Want, e.Wait, e.Token)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns ErrNotReplicated and WAIT's error, if any.
func (e *ReplicationError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrNotReplicated, e.Err}
	}
	return []error{ErrNotReplicated}
}

// Replicas is how many replicas every write of a board waits for, and how long at most. The
// zero Replicas waits for none.
type Replicas struct {
	n    int
	wait time.Duration
}

// WaitReplicas makes every write wait until n replicas have it, for at most timeout (rounded
// up to whole milliseconds, at least one: WAIT's timeout 0 would wait forever): Redis's WAIT,
// sent after the write's script on the same connection. A write that fewer replicas
// acknowledged in time returns a *ReplicationError (ErrNotReplicated): the master applied it,
// and it may or may not survive a failover; resending it with its token applies nothing again
// and waits again. Replication stays asynchronous: an acknowledged write survives the failure
// of its master when the replica promoted is one that acknowledged it.
func WaitReplicas(n int, timeout time.Duration) Replicas {
	ms := (timeout + time.Millisecond - 1) / time.Millisecond
	return Replicas{n: max(n, 0), wait: max(ms, 1) * time.Millisecond}
}

// IsZero reports whether writes wait for no replica.
func (r Replicas) IsZero() bool { return r.n == 0 }

// String describes the requirement.
func (r Replicas) String() string {
	if r.IsZero() {
		return "no replica wait"
	}
	return fmt.Sprintf("wait for %d replicas, at most %v", r.n, r.wait)
}

// clusterAttempts bounds how often a write is sent again after the cluster said its slot moved
// or is unavailable, or its master could not be reached: as often as go-redis's default
// MaxRedirects, with the same token, so the write is still applied once.
const clusterAttempts = 4

// RunWriteWait runs a write script as RunWrite does, then, unless r is zero, WAIT for r's
// replicas on the same connection in the same round trip: a write the master applied that
// fewer replicas acknowledged in time is a *ReplicationError (ErrNotReplicated). On a
// ClusterClient the pair goes to the master of keys[0]'s slot, again after a redirection or a
// failover (same token: applied once); a Ring is refused, its WAIT having no master to follow.
// A ClusterClient whose write got no reply reloads its slot map, so that the next call reaches
// the master that serves the board's slot by then.
func RunWriteWait(ctx context.Context, c redis.UniversalClient, f *Function, keys []string, token string, r Replicas, args ...any) (any, error) {
	if r.IsZero() {
		v, err := RunWrite(ctx, c, f, keys, token, args...)
		if cc, ok := c.(*redis.ClusterClient); ok && errors.Is(err, ErrUncertain) {
			// go-redis retries a dead master's address until its next periodic reload of the
			// slot map (ClusterStateReloadInterval, a minute by default): reload now, so that
			// the next call finds the replica promoted in its place.
			cc.ReloadState(ctx)
		}
		return v, err
	}
	keys = WriteKeys(keys, token)
	switch c := c.(type) {
	case *redis.Ring:
		return nil, errors.New("rankgen: waiting for replicas needs a *redis.Client or a *redis.ClusterClient, not a *redis.Ring")
	case *redis.ClusterClient:
		return runClusterWait(ctx, c, f, keys, token, r, args)
	default:
		return runWait(ctx, c, f, keys, token, r, args)
	}
}

// runClusterWait sends the write and its WAIT to the master of the board's slot, following the
// cluster to a new master when the slot moved or its master failed.
func runClusterWait(ctx context.Context, c *redis.ClusterClient, f *Function, keys []string, token string, r Replicas, args []any) (any, error) {
	backoff := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		node, err := c.MasterForKey(ctx, keys[0])
		if err != nil {
			return nil, err // nothing was sent
		}
		v, err := runWait(ctx, node, f, keys, token, r, args)
		if attempt == clusterAttempts || !movedOn(err) || ctx.Err() != nil {
			return v, err
		}
		c.ReloadState(ctx)
		select {
		case <-ctx.Done():
			return v, err
		case <-time.After(backoff):
		}
		backoff *= 2
	}
}

// movedOn reports whether a write's error means the board's slot is served elsewhere now, or
// not at the moment: MOVED, a cluster or master that is down, a replica answering
// READONLY, or no reply at all (the master may have died). Resending under the same token is
// then safe.
func movedOn(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrUncertain) {
		return true
	}
	_, moved := redis.IsMovedError(err)
	return moved || redis.IsClusterDownError(err) || redis.IsTryAgainError(err) ||
		redis.IsMasterDownError(err) || redis.IsReadOnlyError(err) || redis.IsLoadingError(err)
}

// runWait pipelines FCALL and WAIT on c (one node), and again after loading the library there
// when the node lacks it (a restarted or newly promoted master), as every call does
// (Function.sendLoaded).
func runWait(ctx context.Context, c redis.Cmdable, f *Function, keys []string, token string, r Replicas, args []any) (any, error) {
	call := func(p redis.Pipeliner) *redis.Cmd { return f.queue(ctx, p, false, keys, args) }
	var eval *redis.Cmd
	var wait *redis.IntCmd
	if err := f.sendLoaded(ctx, c, keys, func() error {
		eval, wait = pipelineWait(ctx, c, r, call)
		return eval.Err()
	}); err != nil {
		return nil, err // nothing ran
	}
	v, err := eval.Result()
	if err != nil {
		return nil, writeError(err, token)
	}
	got, err := wait.Result()
	if err != nil || got < int64(r.n) {
		return v, &ReplicationError{Token: token, Want: r.n, Got: got, Wait: r.wait, Err: err}
	}
	return v, nil
}

// pipelineWait sends the function call queued by eval and a WAIT for r in one pipeline.
func pipelineWait(ctx context.Context, c redis.Cmdable, r Replicas, eval func(redis.Pipeliner) *redis.Cmd) (*redis.Cmd, *redis.IntCmd) {
	pipe := c.Pipeline()
	e := eval(pipe)
	w := redis.NewIntCmd(ctx, "wait", r.n, r.wait.Milliseconds())
	_ = pipe.Process(ctx, w)
	_, _ = pipe.Exec(ctx) // each command keeps its own reply and error
	return e, w
}

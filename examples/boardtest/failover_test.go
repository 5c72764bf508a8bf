package boardtest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// Failover: a bounded stream of writes on a board of a private cluster (redistest.NewCluster,
// cluster-node-timeout 1 s) while the board's master is SIGKILLed, or handed over with CLUSTER
// FAILOVER on its replica. The writes go on once go-redis follows the promoted replica; the
// board stays consistent; and the acknowledged writes that the new master lacks are counted
// and logged (Redis replicates asynchronously). docs/sharded.md's "Replication and failover" reports
// these counts.

const (
	failoverWorkers = 4
	failoverOps     = 1500                   // per worker, at most: 6,000 writes in all
	failoverStopAt  = 100                    // the master is stopped after about this many writes per worker
	failoverServed  = 800 * time.Millisecond // the writes stop this long after the promotion, once the new master served some
	failoverGiveUp  = 10 * time.Second       // or this long after it, when it served none (a busy machine may reload the slot map late)
	failoverPace    = 3 * time.Millisecond
)

// TestFailoverKill: SIGKILL the board's master mid-stream. Acknowledged writes may be lost
// (those the replica had not received); the test asserts the board is consistent and no
// write is applied twice, and logs the loss. A pipelined batch of the board's scripts right
// after the failover meets a new master that may lack them (NOSCRIPT) and works after Load.
func TestFailoverKill(t *testing.T) {
	f := newFailover(t)
	r := f.run(t, f.kill)
	r.log(t, "SIGKILL")
	f.pipelinedBatch(t)
}

// TestFailoverManual: CLUSTER FAILOVER on the replica mid-stream. The master hands over once
// the replica has every write it acknowledged: nothing acknowledged is lost.
func TestFailoverManual(t *testing.T) {
	f := newFailover(t)
	r := f.run(t, f.manual)
	r.log(t, "CLUSTER FAILOVER")
	if r.lostSets != 0 || r.lostAdds != 0 {
		t.Errorf("a manual failover lost %d acknowledged Sets and %d acknowledged adds; want none", r.lostSets, r.lostAdds)
	}
}

// TestFailoverKillCutReplica: the window in which acknowledged writes are lost, made wide
// and certain. The board's replica is frozen (SIGSTOP) and its link cut (CLIENT KILL TYPE
// replica on the master), the stream goes on for failoverCut, acknowledged by the master
// alone, then the master is SIGKILLed and the replica thawed and promoted: the writes of the
// window are lost. The board stays consistent; the test asserts the loss is seen.
func TestFailoverKillCutReplica(t *testing.T) {
	f := newFailover(t)
	r := f.run(t, f.cutThenKill)
	r.log(t, "replica cut, then SIGKILL")
	if r.lostSets+r.lostAdds == 0 {
		t.Errorf("no acknowledged write was lost, though the master acknowledged writes for %v with its replica cut off", failoverCut)
	}
}

// TestFailoverKillWithReplicas: the same failover under WithReplicas(1, …): the writes of the
// window wait for the cut-off replica and return ErrNotReplicated, so every acknowledged write
// is on the promoted replica: none is lost. Writes after the promotion (the new master has no
// replica) are applied but not acknowledged either.
func TestFailoverKillWithReplicas(t *testing.T) {
	f := newFailover(t, season.WithReplicas(1, 100*time.Millisecond))
	r := f.run(t, f.cutThenKill)
	r.log(t, "replica cut, then SIGKILL, WithReplicas(1, 100ms)")
	if r.lostSets != 0 || r.lostAdds != 0 {
		t.Errorf("lost %d acknowledged Sets and %d acknowledged adds under WithReplicas; want none", r.lostSets, r.lostAdds)
	}
	if r.notReplicated == 0 {
		t.Errorf("no write returned ErrNotReplicated, though the replica was cut off")
	}
}

// failoverCut is how long the master acknowledges writes with its replica cut off.
const failoverCut = 300 * time.Millisecond

// failover is a board on a cluster of its own, and how to stop its master.
type failover struct {
	cl              *redistest.Cluster
	c               *redis.ClusterClient
	b               *season.Board
	master, replica *redistest.Server
}

func newFailover(t *testing.T, opts ...season.Option) *failover {
	cl := redistest.NewCluster(t)
	c := cl.Client(t, func(o *redis.ClusterOptions) { o.PoolSize = 2 * failoverWorkers })
	key := redistest.Key(t, "board")
	// A node may not know of its shard's replica until gossip has spread it: ask until one
	// reports it, for a bounded time.
	slot := c.ClusterKeySlot(ctx, key).Val()
	master, replica, err := cl.Shard(ctx, slot)
	for deadline := time.Now().Add(10 * time.Second); (err != nil || replica == nil) && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		master, replica, err = cl.Shard(ctx, slot)
	}
	if err != nil || replica == nil {
		t.Fatalf("the board's shard: master %v, replica %v, %v", master, replica, err)
	}
	return &failover{cl: cl, c: c, b: season.NewBoard(c, key, opts...), master: master, replica: replica}
}

// kill SIGKILLs the board's master.
func (f *failover) kill(t *testing.T) { f.cl.Kill(f.master) }

// cutThenKill freezes the board's replica and cuts its link, lets the master acknowledge
// writes alone for failoverCut, then SIGKILLs the master and thaws the replica, which is
// promoted without those writes.
func (f *failover) cutThenKill(t *testing.T) {
	if err := f.cl.Freeze(f.replica); err != nil {
		t.Fatal(err)
	}
	thawed := false
	defer func() {
		if !thawed {
			_ = f.cl.Thaw(f.replica)
		}
	}()
	if err := f.master.Client(t).Do(ctx, "CLIENT", "KILL", "TYPE", "replica").Err(); err != nil {
		t.Errorf("CLIENT KILL TYPE replica: %v", err)
	}
	time.Sleep(failoverCut)
	f.cl.Kill(f.master)
	thawed = f.cl.Thaw(f.replica) == nil
}

// manual runs CLUSTER FAILOVER on the board's replica.
func (f *failover) manual(t *testing.T) {
	if err := f.replica.Client(t).Do(ctx, "CLUSTER", "FAILOVER").Err(); err != nil {
		t.Errorf("CLUSTER FAILOVER: %v", err)
	}
}

// failoverReport is what became of the stream's writes.
type failoverReport struct {
	ops, acked, notReplicated, failed int64
	servedAfter                       int64 // writes the new master applied
	sentAfter                         int64 // writes sent after the promotion was seen
	errsAfter                         map[string]int
	promotionSeen                     bool // WaitMaster saw the replica serve as the master
	lostSets, lostAdds                int  // acknowledged, absent from the final board
	failedApplied                     int  // Sets that failed yet are on the board
	promotion                         time.Duration
	errs                              map[string]int
}

func (r *failoverReport) log(t *testing.T, how string) {
	t.Logf("%s: %d writes in %d goroutines; the replica served %v after the stop; %d acknowledged, %d not replicated, %d failed (%v), %d of the failed Sets applied; lost: %d acknowledged Sets, %d acknowledged adds; %d writes served by the new master",
		how, r.ops, failoverWorkers, r.promotion.Round(time.Millisecond), r.acked, r.notReplicated, r.failed, r.errs, r.failedApplied, r.lostSets, r.lostAdds, r.servedAfter)
}

// stream is the writes of the run: Sets of ids written once (present or lost) and adds of
// +1 to one counter per worker (never applied twice).
type stream struct {
	mu                  sync.Mutex
	setAcked, setFailed map[string]bool
	addAcked, addMaybe  [failoverWorkers]int64 // adds acknowledged; adds that may have applied
	rep                 failoverReport
	promoted            atomic.Int64 // Unix nanoseconds when the replica was promoted, 0 before
}

// run writes from failoverWorkers goroutines, stops the master with stop after about
// failoverStopAt writes per worker, waits for the replica's promotion, and checks the board afterwards.
func (f *failover) run(t *testing.T, stop func(*testing.T)) *failoverReport {
	s := &stream{setAcked: map[string]bool{}, setFailed: map[string]bool{}, rep: failoverReport{errs: map[string]int{}, errsAfter: map[string]int{}}}
	var wg sync.WaitGroup
	for w := range failoverWorkers {
		wg.Add(1)
		go func() { defer wg.Done(); f.worker(t, s, w) }()
	}
	time.Sleep(failoverStopAt * failoverPace)
	stopped := time.Now()
	stop(t)
	if err := f.cl.WaitMaster(ctx, f.replica, 30*time.Second); err != nil {
		t.Errorf("after the stop: %v", err)
	} else {
		s.rep.promotionSeen = true
	}
	s.rep.promotion = time.Since(stopped)
	s.promoted.Store(time.Now().UnixNano())
	wg.Wait()
	f.check(t, s)
	return &s.rep
}

// worker writes until the new master has served for failoverServed, or failoverOps writes:
// even steps Set a new id, odd steps add 1 to the worker's counter.
func (f *failover) worker(t *testing.T, s *stream, w int) {
	counter := fmt.Sprintf("c%d", w)
	for i := 0; i < failoverOps; i++ {
		if p := s.promoted.Load(); p != 0 && s.done(time.Since(time.Unix(0, p))) {
			return
		}
		time.Sleep(failoverPace)
		var err error
		id := fmt.Sprintf("w%d-%d", w, i)
		if i%2 == 0 {
			_, err = f.b.Set(ctx, season.Entry{UserID: id, Points: uint64(i), Tier: season.TierGold, ReachedAt: time.UnixMilli(1800000000000)})
		} else {
			_, err = f.b.AddPoints(ctx, counter, 1)
		}
		s.record(t, w, i, id, err)
	}
}

// done reports whether the writes can stop, since after the promotion: once the new master has
// served a write per worker for failoverServed, or after failoverGiveUp in any case.
func (s *stream) done(since time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return since > failoverGiveUp || (since > failoverServed && s.rep.servedAfter >= failoverWorkers)
}

// record files one write's outcome.
func (s *stream) record(t *testing.T, w, i int, id string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rep.ops++
	set := i%2 == 0
	if p := s.promoted.Load(); p != 0 {
		s.rep.sentAfter++
		if err == nil || errors.Is(err, rankgenrt.ErrNotReplicated) {
			s.rep.servedAfter++
		} else {
			s.rep.errsAfter[errorClass(err)]++
		}
	}
	var se *rankgenrt.ScriptError
	var re *rankgenrt.RangeError
	switch {
	case err == nil:
		s.rep.acked++
		if set {
			s.setAcked[id] = true
		} else {
			s.addAcked[w]++
			s.addMaybe[w]++
		}
		return
	case errors.As(err, &se) || errors.As(err, &re):
		t.Errorf("%s: %v; a failover must not make a script refuse a write", id, err)
		return
	case errors.Is(err, rankgenrt.ErrNotReplicated):
		s.rep.notReplicated++
	default:
		s.rep.failed++
	}
	s.rep.errs[errorClass(err)]++
	if set {
		s.setFailed[id] = true
	} else {
		s.addMaybe[w]++
	}
}

// errorClass names the kind of a failed write, for the report.
func errorClass(err error) string {
	switch {
	case errors.Is(err, rankgenrt.ErrNotReplicated):
		return "not replicated"
	case errors.Is(err, rankgenrt.ErrUncertain):
		return "uncertain"
	case redis.IsClusterDownError(err):
		return "CLUSTERDOWN"
	}
	if _, ok := redis.IsMovedError(err); ok {
		return "MOVED"
	}
	return "other"
}

// check reads the final board through a new client and asserts what a failover must keep:
// every member decodes, one member per id, the index maps every id to its member and nothing
// else, no add applied twice; then counts the acknowledged writes that are missing.
func (f *failover) check(t *testing.T, s *stream) {
	c := f.cl.Client(t, nil)
	entries := boardEntries(t, c, f.b.Keys())
	for id := range s.setAcked {
		if _, ok := entries[id]; !ok {
			s.rep.lostSets++
		}
	}
	for id := range s.setFailed {
		if _, ok := entries[id]; ok {
			s.rep.failedApplied++
		}
	}
	for w := range failoverWorkers {
		got := int64(entries[fmt.Sprintf("c%d", w)].Points)
		if got > s.addMaybe[w] {
			t.Errorf("counter c%d = %d, above the %d adds sent: an add was applied twice", w, got, s.addMaybe[w])
		}
		if got < s.addAcked[w] {
			s.rep.lostAdds += int(s.addAcked[w] - got)
		}
	}
	switch r := &s.rep; {
	case r.servedAfter > 0:
	case !r.promotionSeen:
		t.Errorf("no write was served after the stop, and the replica was not seen serving as the master (see above)")
	case r.sentAfter == 0:
		t.Errorf("no write was sent after the promotion was seen (%v after the stop): each worker had sent its %d writes before", r.promotion.Round(time.Millisecond), failoverOps)
	default:
		t.Errorf("none of the %d writes sent after the promotion was seen was served (%v): the client did not follow the new master", r.sentAfter, r.errsAfter)
	}
}

// boardEntries reads a season board's keys and checks its consistency: each member decodes to
// one id, the index holds the layout's fingerprint and maps each id to its member, no more.
func boardEntries(t *testing.T, c redis.UniversalClient, keys []string) map[string]season.Entry {
	t.Helper()
	zs, err := c.ZRangeWithScores(ctx, keys[0], 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	idx, err := c.HGetAll(ctx, keys[1]).Result()
	if err != nil {
		t.Fatal(err)
	}
	if fp := idx[""]; fp != season.Fingerprint {
		t.Errorf("index fingerprint %q; want %q", fp, season.Fingerprint)
	}
	delete(idx, "")
	entries := map[string]season.Entry{}
	for _, z := range zs {
		m := z.Member.(string)
		e, err := season.Decode(z.Score, m)
		if err != nil {
			t.Errorf("member %q (score %v) does not decode: %v", m, z.Score, err)
			continue
		}
		if _, dup := entries[e.UserID]; dup {
			t.Errorf("id %q has two members", e.UserID)
		}
		entries[e.UserID] = e
		if idx[e.UserID] != m {
			t.Errorf("the index maps %q to %q; the set holds %q", e.UserID, idx[e.UserID], m)
		}
	}
	if len(idx) != len(entries) || len(zs) != len(entries) {
		t.Errorf("%d members, %d ids, %d index entries; want one of each per id", len(zs), len(entries), len(idx))
	}
	return entries
}

// pipelinedBatch runs a batch of the board's Best function (which the stream never called) in
// one pipeline right after the failover, as a caller calling Library()'s functions in its own
// pipelines does: the new master has the library when it reached it as a replica (FUNCTION
// LOAD is replicated), else answers that the function is not found and nothing ran; after
// Board.Load the batch is applied.
func (f *failover) pipelinedBatch(t *testing.T) {
	batch := func(tag string) error {
		pipe := f.c.Pipeline()
		for i := range 3 {
			e := season.Entry{UserID: fmt.Sprintf("p%d", i), Points: uint64(1_000_000 + i), ReachedAt: time.UnixMilli(1800000000000)}
			score, member, err := e.Encode()
			if err != nil {
				t.Fatal(err)
			}
			// Best's arguments: no expiry, the write's token, a dedup window of 60 s, the pair.
			key, token := f.b.Key(), tag+fmt.Sprint(i)
			keys := []string{key, rankgenrt.IndexKey(key), rankgenrt.AckKey(rankgenrt.AckBase(key), token), rankgenrt.FenceKey(key)}
			pipe.FCall(ctx, season.Library().Function("best").Name, keys, "", 0, token, "60", rankgenrt.FormatScore(score), member)
		}
		_, err := pipe.Exec(ctx)
		return err
	}
	err := batch("first")
	t.Logf("pipelined batch on the new master before Load: %v", err)
	if err != nil && !strings.Contains(err.Error(), "Function not found") {
		t.Fatalf("pipelined batch after the failover: %v; want success or function not found", err)
	}
	if err != nil {
		entries := boardEntries(t, f.c, f.b.Keys())
		for i := range 3 {
			if e, ok := entries[fmt.Sprintf("p%d", i)]; ok {
				t.Fatalf("p%d = %+v after a batch refused for a missing function; want nothing written", i, e)
			}
		}
	}
	if err := f.b.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if err := batch("second"); err != nil {
		t.Fatalf("pipelined batch after Load: %v", err)
	}
	entries := boardEntries(t, f.c, f.b.Keys())
	for i := range 3 {
		if e := entries[fmt.Sprintf("p%d", i)]; e.Points != uint64(1_000_000+i) {
			t.Errorf("p%d = %+v after the pipelined batch", i, e)
		}
	}
}

package migrate

import (
	"context"
	"errors"
	"sync"
	"time"
)

// A sharded board's shards lie in several hash slots, so no one script switches them all; a
// read that merges the shards (Top, Rank, Count, …) compares entries in one layout's order and
// is refused while some shards hold each layout. RunBoard therefore migrates the shards of a
// board together: each copies and catches up on its own, then waits at a gate until every shard
// has, catching up meanwhile; only then does each close its fence for its last catch-up and
// switch. Shards hold both layouts for no longer than their final switches take.

// gate holds the migrations of one board's shards before their fences close, until every
// part has arrived (or ended without needing to: a part already switched) or one has failed.
type gate struct {
	mu      sync.Mutex
	arrived []bool
	waiting int
	open    chan struct{} // closed when every part has arrived
	failed  chan struct{} // closed when a part fails
	fail    sync.Once
}

// errGateFailed ends a shard's migration that waited for another one that failed: its fence
// lifts and a rerun resumes both.
var errGateFailed = errors.New("migrate: another shard of the board failed; rerun to resume")

func newGate(parts int) *gate {
	return &gate{arrived: make([]bool, parts), open: make(chan struct{}), failed: make(chan struct{})}
}

// failPart tells the parts waiting that one failed.
func (g *gate) failPart() { g.fail.Do(func() { close(g.failed) }) }

// arrive counts part in, once, and opens the gate when it is the last.
func (g *gate) arrive(part int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.arrived[part] {
		return
	}
	g.arrived[part] = true
	if g.waiting++; g.waiting == len(g.arrived) {
		close(g.open)
	}
}

// gateWait is how often a part waiting at the gate catches up with its change log, so that
// its last catch-up, under the closed fence, stays short however long it waits.
const gateWait = 50 * time.Millisecond

// await waits at the run's gate (where RunBoard gives one): until every shard of the board has
// copied and caught up, catching up with its own change log meanwhile.
func (m *migration) await(ctx context.Context) error {
	g := m.o.gate
	if g == nil {
		return nil
	}
	m.progress("ready", m.rep.Entries)
	g.arrive(m.o.gatePart)
	for {
		select {
		case <-g.failed: // before open: a part that failed never arrives, but be sure
			return errGateFailed
		default:
		}
		select {
		case <-g.open:
			return nil
		case <-g.failed:
			return errGateFailed
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(gateWait):
			if err := m.catchUp(ctx); err != nil {
				return err
			}
		}
	}
}

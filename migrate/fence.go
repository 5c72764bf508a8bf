package migrate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// An in-place migration fences the board (rankgenrt.FenceKey): while the fence stands, the
// write scripts refuse with ErrMigrating (a *MigratingError, which matches
// rankgenrt.ErrRetry), before anything is written. It is raised logging: writers of the old
// layout still write, and each adds the ids it changes to the change log
// (rankgenrt.ChangeLogKey), which the run replays into its copy (changelog.go) while they go
// on; it is closed only for the last replay, its verification and the switch, which lifts the
// fence in the same script. It expires unless the migration renews it (the log with it, a
// minute longer): one a killed run leaves lifts by itself, and a run that finds this plan's
// copy unfenced starts it again. After each batch the run records in the fence when it expects
// to switch (expect), which a refusal turns into the writer's Wait.

// errFenceLapsed cancels a run whose fence expired under it (the run stalled past the
// expiry): writers may have written what was copied.
var errFenceLapsed = errors.New("the fence lapsed")

// logSlack is how much longer than its fence the change log lives: the write scripts give it
// the fence's expiry plus this (runtime/head.lua's log_changes), so that it outlives the fence.
const logSlack = 60_000

// fenceScript raises the fence logging, or closes it. KEYS: the fence, the progress record,
// the copy, its index or meta key, its data hash, the change log. ARGV: plan, new fingerprint,
// "log" or "close", the old fingerprint (the writers a logging fence lets through), expiry in
// ms. A fence of another plan (a run of other options, which a rerun replaces as begin
// replaces its copy) is taken over; a fence raised afresh over this plan's copy drops the copy
// and the log (writers wrote while the board was unfenced), and so does a fence an earlier
// rankgen raised open (its writers wrote without logging). A closed fence of this plan opens
// again for a rerun: nothing was written since it closed, and its log still holds what was.
// It returns 1 when it dropped a copy.
var fenceScript = redis.NewScript(`
local fence, prog, log = KEYS[1], KEYS[2], KEYS[6]
local plan, layout, mode, old, ttl = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local fresh = redis.call('HGET', fence, 'plan') ~= plan
local dropped = 0
if fresh or (mode == 'log' and redis.call('HEXISTS', fence, 'open') == 1) then
  if redis.call('HGET', prog, 'plan') == plan then
    redis.call('DEL', KEYS[3], KEYS[4], KEYS[5], prog)
    dropped = 1
  end
  redis.call('DEL', log)
end
local t = redis.call('TIME')
local now = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
if fresh then -- raised afresh, or taken over from a run of other options (begin drops its copy)
  redis.call('DEL', fence)
  redis.call('HSET', fence, 'plan', plan, 'layout', layout, 'refused', 0, 'since', now)
end
redis.call('HDEL', fence, 'open')
if mode == 'log' then
  redis.call('HSET', fence, 'logged', old)
  redis.call('HDEL', fence, 'closed')
else
  redis.call('HDEL', fence, 'logged')
  redis.call('HSET', fence, 'closed', now)
end
redis.call('PEXPIRE', fence, ttl)
redis.call('PEXPIRE', log, ttl + ` + strconv.Itoa(logSlack) + `)
return dropped
`)

// renewScript extends the fence of plan ARGV[1] by ARGV[2] ms, and its change log a minute
// longer; 0 when it is gone.
var renewScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'plan') ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[2]) + ` + strconv.Itoa(logSlack) + `)
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
`)

// etaScript records in the fence of plan ARGV[1] when the run expects to switch: ARGV[2] ms
// from now on the server's clock (the write scripts' refusals tell writers to retry then).
var etaScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'plan') ~= ARGV[1] then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'eta', string.format('%d', now + tonumber(ARGV[2])))
return 1
`)

// liftScript removes the fence of plan ARGV[1] and its change log (a run that failed for good).
var liftScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'plan') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1], KEYS[2])
`)

// fence raises the fence logging (mode "log") or closes it ("close"), and keeps renewing it
// until the run ends; a lapse found by a renewal cancels the run.
func (m *migration) fence(ctx context.Context, mode string) error {
	v, err := run(ctx, m.c, fenceScript, []string{m.k.fence, m.k.prog, m.k.dest, m.k.destAux, m.k.destData, m.k.log},
		m.p.id, m.p.New.Fingerprint, mode, m.p.Old.Fingerprint, m.o.FenceTTL.Milliseconds())
	if err != nil {
		return err
	}
	if dropped, _ := v.(int64); dropped == 1 {
		m.rep.Restarted = true
	}
	if m.renewing == nil {
		m.renewing = make(chan struct{})
		go m.renew()
	}
	return nil
}

// passesAfter is how many passes over the board an in-place run makes after each phase's.
var passesAfter = map[string]int64{"check": 2, "copy": 1, "verify": 0}

// expect records in the fence when this run expects to switch, after each batch of its
// passes: the entries still to read (the rest of this pass, the whole board for each pass
// after it) at the rate it has read them so far. It is a hint to writers, so a failure to
// record it is left to the run's next step to meet.
func (m *migration) expect(phase string, done int64) {
	after, ok := passesAfter[phase]
	if !ok || m.renewing == nil {
		return
	}
	if phase != m.readPhase {
		m.readBefore, m.readPhase = m.readBefore+m.readDone, phase
	}
	m.readDone = done
	read, elapsed := m.readBefore+done, time.Since(m.start)
	if read <= 0 || elapsed <= 0 {
		return
	}
	left := max(m.rep.Entries-done, 0) + after*m.rep.Entries
	m.eta(time.Duration(float64(left) / float64(read) * float64(elapsed)))
}

// eta records in the fence that the run expects to switch in d.
func (m *migration) eta(d time.Duration) {
	_ = etaScript.Run(m.ctx, m.c, []string{m.k.fence}, m.p.id, d.Milliseconds()).Err()
}

// renew extends the fence every third of its expiry until the run ends.
func (m *migration) renew() {
	tick := time.NewTicker(m.o.FenceTTL / 3)
	defer tick.Stop()
	for {
		select {
		case <-m.renewing:
			return
		case <-m.ctx.Done():
			return
		case <-tick.C:
			n, err := renewScript.Run(m.ctx, m.c, []string{m.k.fence, m.k.log}, m.p.id, m.o.FenceTTL.Milliseconds()).Int64()
			if err == nil && n == 0 {
				m.cancel(errFenceLapsed)
				return
			}
		}
	}
}

// unfence stops the renewals; a run that failed for good (not one cancelled or cut off,
// which a rerun resumes under the same fence) lifts the fence, so writers go on at once.
func (m *migration) unfence(err error) error {
	if m.renewing == nil {
		return err
	}
	close(m.renewing)
	if errors.Is(context.Cause(m.ctx), errFenceLapsed) {
		return fmt.Errorf("%w: %s: %v (the run stalled past its fence expiry %s): writers may have written what was copied; rerun to copy again",
			ErrChanged, m.k.src, errFenceLapsed, m.o.FenceTTL)
	}
	if err == nil || m.ctx.Err() != nil || !errors.Is(err, ErrChanged) && !errors.Is(err, ErrMisfit) && !errors.Is(err, ErrConflict) && !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		return err
	}
	if lerr := liftScript.Run(context.Background(), m.c, []string{m.k.fence, m.k.log}, m.p.id).Err(); lerr != nil {
		return errors.Join(err, lerr)
	}
	return err
}

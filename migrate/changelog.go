package migrate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/rankgen/rankgen/text/quote"
)

// While an in-place run copies and verifies the board, writers of the old layout write on,
// each adding the ids it changes (entry or data) to the change log in the same script as the
// change (runtime/head.lua's log_changes). So, from the copy on, every id the copy may hold
// differently from the source is in the log, and only a replay takes an id out: in one script
// that finds the source as the run read it, re-encoded into the copy. The run replays the log
// in rounds while writers write (catchUp) until it is short, then closes the fence for the last
// replay (closeAndCatchUp) and the switch, which refuses a log that is not empty: writers wait
// for that part alone, not for the copy.

// stateScript reads, for each id, the source's entry and the copy's, and whether the id is in
// the change log, in one script (a snapshot). KEYS: source, its index (prefixed old layout) or
// meta key, its data hash, the copy, its index or meta key, its data hash, the change log.
// ARGV: old prefix (1/0), new prefix (1/0), data carried (1/0), then the ids. It returns seven
// values an id: the source's member, score and data, the copy's member, score and data (false
// for none) and 1 when the id is logged, else 0.
var stateScript = redis.NewScript(`
local src, sidx, sdata, tmp, taux, tdata, log = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local oldprefix, newprefix, data = ARGV[1] == '1', ARGV[2] == '1', ARGV[3] == '1'
local out = {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local sm = id
  if oldprefix then sm = redis.call('HGET', sidx, id) end
  local ss = sm and redis.call('ZSCORE', src, sm)
  local tm = id
  if newprefix then tm = redis.call('HGET', taux, id) end
  local ts = tm and redis.call('ZSCORE', tmp, tm)
  out[#out + 1] = ss and sm
  out[#out + 1] = ss
  out[#out + 1] = data and redis.call('HGET', sdata, id)
  out[#out + 1] = ts and tm
  out[#out + 1] = ts
  out[#out + 1] = data and redis.call('HGET', tdata, id)
  out[#out + 1] = redis.call('SISMEMBER', log, id)
end
return out
`)

// replayScript copies logged ids again. KEYS: as stateScript's, then the progress record.
// ARGV: plan, old prefix (1/0), new prefix (1/0), data carried (1/0), new fingerprint, new data
// fingerprint, then for each id seven values: the id, the source's member, score and data as
// the run read them, and the copy's score, member and data the run made of them (a member ""
// for none; data "-" for none, else "+" and the data). An id whose source still reads so is
// written into the copy as made (or removed from it, the source having none) and taken out of
// the log; another one stays there for a later round. It returns 1 or 0 for each id: replayed.
var replayScript = redis.NewScript(claimed + `
local src, sidx, sdata, tmp, taux, tdata, log, prog = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local plan, oldprefix, newprefix, data, fp, dfp = ARGV[1], ARGV[2] == '1', ARGV[3] == '1', ARGV[4] == '1', ARGV[5], ARGV[6]
local p = redis.call('HMGET', prog, 'plan', 'phase')
if p[1] ~= plan or p[2] ~= 'copied' then
  return redis.error_reply('MIGRATE_CONFLICT another migration of ' .. src .. ' is running (its progress moved)')
end
local have = claimed(taux, newprefix)
if have and have ~= fp then
  return redis.error_reply('RANKGEN_LAYOUT_MISMATCH ' .. tmp .. ' has layout ' .. have .. ', the migration writes layout ' .. fp)
end
local dhave, derr = data_claimed(tdata, data and dfp or '', tmp)
if derr then return derr end
local out, wrote, withdata = {}, false, false
for i = 7, #ARGV, 7 do
  local id, sm, ss, sd = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local ns, nm, nd = ARGV[i + 4], ARGV[i + 5], ARGV[i + 6]
  local m = id
  if oldprefix then m = redis.call('HGET', sidx, id) end
  local s = m and redis.call('ZSCORE', src, m)
  local d = data and redis.call('HGET', sdata, id)
  local same = (s and m == sm and s == ss) or (not s and sm == '')
  if data then same = same and ((d and sd == '+' .. d) or (not d and sd == '-')) end
  if same then
    local cur = id
    if newprefix then cur = redis.call('HGET', taux, id) end
    if cur and not redis.call('ZSCORE', tmp, cur) then cur = false end
    if sm == '' then
      if cur then redis.call('ZREM', tmp, cur) end
      if newprefix then redis.call('HDEL', taux, id) end
      if data then redis.call('HDEL', tdata, id) end
    else
      if cur and cur ~= nm then redis.call('ZREM', tmp, cur) end
      redis.call('ZADD', tmp, ns, nm)
      if newprefix then redis.call('HSET', taux, id, nm) end
      wrote = true
      if data and nd ~= '-' then
        redis.call('HSET', tdata, id, string.sub(nd, 2))
        withdata = true
      elseif data then
        redis.call('HDEL', tdata, id)
      end
    end
    redis.call('SREM', log, id)
  end
  out[#out + 1] = same and 1 or 0
end
if wrote and not have then
  if newprefix then redis.call('HSET', taux, '', fp) else redis.call('SET', taux, fp) end
end
if withdata and not dhave then redis.call('HSET', tdata, '', dfp) end
return out
`)

// state is what stateScript read of one id.
type state struct {
	id                    string
	srcMember, srcScore   string // "" for none
	srcData               string
	srcHas                bool   // the source has data for the id
	copyMember, copyScore string // "" for none
	copyData              string
	copyHas, logged       bool
}

// states reads the source's and the copy's entries of ids, and which of them are logged.
func (m *migration) states(ctx context.Context, ids []string) ([]state, error) {
	args := make([]any, 0, 3+len(ids))
	args = append(args, flag(m.p.Old.HasPrefix()), flag(m.p.New.HasPrefix()), flag(m.p.carriesData()))
	for _, id := range ids {
		args = append(args, id)
	}
	v, err := run(ctx, m.c, stateScript, []string{m.k.src, auxKey(m.p.Old, m.k.src), m.k.srcData, m.k.dest, m.k.destAux, m.k.destData, m.k.log}, args...)
	if err != nil {
		return nil, err
	}
	a, ok := v.([]any)
	if !ok || len(a) != 7*len(ids) {
		return nil, fmt.Errorf("%w: migration state reply of %d values for %d ids", rankgenrt.ErrBadReply, len(a), len(ids))
	}
	out := make([]state, len(ids))
	for i, id := range ids {
		r := a[7*i : 7*i+7]
		s := &out[i]
		s.id = id
		s.srcMember, _ = r[0].(string)
		s.srcScore, _ = r[1].(string)
		s.srcData, s.srcHas = r[2].(string)
		s.copyMember, _ = r[3].(string)
		s.copyScore, _ = r[4].(string)
		s.copyData, s.copyHas = r[5].(string)
		logged, _ := r[6].(int64)
		s.logged = logged == 1
	}
	return out, nil
}

// catchUp replays the change log in rounds while writers write, until it holds at most a batch
// of ids (or a round no longer shortens it: writers change ids faster than a round copies
// them), so that the closed fence waits for that much alone.
func (m *migration) catchUp(ctx context.Context) error {
	prev := int64(-1)
	for round := 0; ; round++ {
		n, err := m.c.SCard(ctx, m.k.log).Result()
		if err != nil || n <= int64(m.o.Batch) || (round >= 8 && n >= prev) {
			return err
		}
		prev = n
		m.eta(m.replayTime(n))
		if _, err := m.replayLog(ctx, false); err != nil {
			return err
		}
	}
}

// closeAndCatchUp closes the fence (writers of both layouts are refused from here to the
// switch) and replays what is left of the change log, verifying each id it copies again: no
// write can come between, so the log ends empty, or the source changed by other means.
func (m *migration) closeAndCatchUp(ctx context.Context) error {
	n, err := m.c.SCard(ctx, m.k.log).Result()
	if err != nil {
		return err
	}
	m.eta(m.replayTime(n) + 5*time.Millisecond) // refused writers come back at the switch
	m.progress("closing", n)
	if err := m.fence(ctx, "close"); err != nil {
		return err
	}
	for round := 0; ; round++ {
		replayed, err := m.replayLog(ctx, true)
		if err != nil {
			return err
		}
		n, err := m.c.SCard(ctx, m.k.log).Result()
		if err != nil || n == 0 {
			return err
		}
		if replayed == 0 && round >= 3 {
			return m.changed(ctx, fmt.Errorf("%w: %s: %d logged ids keep changing under the closed fence (a write by code that does not meet it)", ErrChanged, m.k.src, n))
		}
	}
}

// replayTime is how long replaying n ids should take, at the rate the run replayed so far (at
// first, a guess of 50 µs an id).
func (m *migration) replayTime(n int64) time.Duration {
	per := 50 * time.Microsecond
	if m.rep.Replayed > 0 {
		per = m.replaying / time.Duration(m.rep.Replayed)
	}
	return time.Duration(n) * per
}

// replayBatchMax caps the ids one replay script copies: its scripts run while writers write, so
// each is kept short (about a fifth of a copy batch's work).
const replayBatchMax = 100

// replayLog replays every id the change log holds when it starts, a batch at a time, and
// returns how many it replayed. strict (the fence closed): an id replayed must verify, logged
// or not.
func (m *migration) replayLog(ctx context.Context, strict bool) (int64, error) {
	start := time.Now()
	var replayed int64
	var cursor uint64
	for {
		ids, next, err := m.c.SScan(ctx, m.k.log, cursor, "", int64(min(m.o.Batch, replayBatchMax))).Result()
		if err != nil {
			return replayed, err
		}
		n, err := m.replayBatch(ctx, ids, strict)
		replayed += n
		if err != nil {
			return replayed, err
		}
		if next == 0 {
			break
		}
		cursor = next
	}
	m.rep.Replayed += replayed
	m.replaying += time.Since(start)
	return replayed, nil
}

// replayBatch copies the logged ids again from the source, each re-encoded as the copy pass
// does, then verifies those replayed.
func (m *migration) replayBatch(ctx context.Context, ids []string, strict bool) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	sts, err := m.states(ctx, ids)
	if err != nil {
		return 0, err
	}
	args := make([]any, 0, 6+7*len(ids))
	args = append(args, m.p.id, flag(m.p.Old.HasPrefix()), flag(m.p.New.HasPrefix()), flag(m.p.carriesData()),
		m.p.New.Fingerprint, m.p.New.DataFingerprint)
	for _, s := range sts {
		member, score, data, err := m.recodeState(s)
		if err != nil {
			return 0, err
		}
		args = append(args, s.id, s.srcMember, s.srcScore, present(s.srcData, s.srcHas), score, member, data)
	}
	v, err := run(ctx, m.c, replayScript, []string{m.k.src, auxKey(m.p.Old, m.k.src), m.k.srcData, m.k.dest, m.k.destAux, m.k.destData, m.k.log, m.k.prog}, args...)
	if err != nil {
		return 0, err
	}
	a, ok := v.([]any)
	if !ok || len(a) != len(ids) {
		return 0, fmt.Errorf("%w: replay reply %v", rankgenrt.ErrBadReply, v)
	}
	var done []string
	for i, r := range a {
		if n, _ := r.(int64); n == 1 {
			done = append(done, ids[i])
		}
	}
	return int64(len(done)), m.verifyIDs(ctx, done, strict)
}

// present is data as replayScript takes it: "-" for none, else "+" and the data.
func present(data string, has bool) string {
	if !has {
		return "-"
	}
	return "+" + data
}

// recodeState is the copy's member, score and data (as replayScript takes them) for the source
// entry s read: none ("", "", "-") when the source has none. An entry a writer made that the
// new layout cannot hold stops the run (ErrMisfit, which lifts the fence).
func (m *migration) recodeState(s state) (member, score, data string, err error) {
	if s.srcMember == "" {
		return "", "", "-", nil
	}
	sc, err := strconv.ParseFloat(s.srcScore, 64)
	if err != nil {
		return "", "", "", fmt.Errorf("%w: score %.40q", rankgenrt.ErrBadReply, s.srcScore)
	}
	_, mapped, err := m.p.mapStored(sc, s.srcMember)
	var ns float64
	if err == nil {
		ns, member, err = m.p.encode(mapped)
	}
	data = "-"
	if err == nil && s.srcHas {
		var d string
		d, err = m.p.RecodeData(s.srcData)
		data = "+" + d
	}
	if err != nil {
		if !errors.Is(err, ErrMisfit) {
			err = fmt.Errorf("%w: the old layout cannot decode it: %v", ErrMisfit, err)
		}
		return "", "", "", fmt.Errorf("%s: id %s, written during the migration: %w", m.k.src, quote.Short(s.id), err)
	}
	return member, strconv.FormatFloat(ns, 'g', -1, 64), data, nil
}

// verifyIDs verifies the copy's entries of ids against the source's, decoded both ways, with
// their data; unless strict, an id that differs and is logged again passes (a later replay
// verifies it).
func (m *migration) verifyIDs(ctx context.Context, ids []string, strict bool) error {
	if len(ids) == 0 {
		return nil
	}
	sts, err := m.states(ctx, ids)
	if err != nil {
		return err
	}
	for _, s := range sts {
		err := m.verifyState(s)
		if err != nil && (strict || !s.logged) {
			if errors.Is(err, ErrChanged) {
				return m.changed(ctx, err)
			}
			return err
		}
	}
	return nil
}

// verifyState checks the copy's entry of one id against the source's, as verifyBatch does.
func (m *migration) verifyState(s state) error {
	switch {
	case s.srcMember == "" && s.copyMember == "" && !s.copyHas:
		return nil
	case s.srcMember == "":
		return fmt.Errorf("%w: id %s is on %s but not on %s", ErrChanged, quote.Short(s.id), m.copyName(), m.k.src)
	case s.copyMember == "":
		return m.missing(s.id)
	}
	sc, err := strconv.ParseFloat(s.srcScore, 64)
	if err != nil {
		return fmt.Errorf("%w: score %.40q", rankgenrt.ErrBadReply, s.srcScore)
	}
	old, err := m.oldEntry(entry{member: s.srcMember, score: sc})
	if err != nil {
		return err
	}
	cs, err := strconv.ParseFloat(s.copyScore, 64)
	if err != nil {
		return fmt.Errorf("%w: score %.40q", rankgenrt.ErrBadReply, s.copyScore)
	}
	withData, err := m.compare(old, s.copyMember, cs)
	if err != nil || !withData || !m.p.carriesData() {
		return err
	}
	return m.compareData(s.id, s.srcData, s.srcHas, s.copyData, s.copyHas)
}

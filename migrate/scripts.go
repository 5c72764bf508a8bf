package migrate

import (
	"context"
	"errors"
	"strings"

	"github.com/redis/go-redis/v9"

	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// ErrConflict: the destination holds what this migration cannot take over: another
// migration's progress (with -to-key), or a temporary key it did not write, or a migration
// running at the same time. Nothing is written.
var ErrConflict = errors.New("rankgen migrate: conflicting state")

// ErrChanged: the source changed under the migration in a way the copy did not follow (an
// entry written without the change log, its entry count or layout differs from the copy's),
// so the copy was not switched in. Stop what writes the board other than its generated write
// functions (at -to-key: any writer of the old layout alone) and rerun.
var ErrChanged = errors.New("rankgen migrate: the source changed during the migration")

// The scripts share a prologue: the layout fingerprint the destination's side key claims,
// and the check of the data format its data hash records. KEYS[1] destination board, KEYS[2]
// its index (prefix layouts) or meta key, KEYS[3] the progress record (a hash: plan, phase,
// cursor, done), KEYS[4] its data hash.
const claimed = `
local function claimed(aux, prefix)
  if prefix then return redis.call('HGET', aux, '') end
  return redis.call('GET', aux)
end
local function data_claimed(dkey, dfp, board)
  if dfp == '' then return nil end
  local have = redis.call('HGET', dkey, '')
  if have and string.match(have, '[^,]*$') ~= dfp then
    return have, redis.error_reply('RANKGEN_LAYOUT_MISMATCH ' .. board .. ' has data of format ' .. have .. ', the migration writes ' .. dfp)
  end
  return have
end
`

// beginScript starts or resumes a migration. ARGV: plan, new fingerprint, prefix (1/0), in
// place (1/0), new data fingerprint (empty without data). It returns {phase, cursor, done}.
var beginScript = redis.NewScript(claimed + `
local board, aux, prog, dkey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local plan, fp, prefix, inplace = ARGV[1], ARGV[2], ARGV[3] == '1', ARGV[4] == '1'
local have = claimed(aux, prefix)
if have and have ~= fp then
  return redis.error_reply('RANKGEN_LAYOUT_MISMATCH ' .. board .. ' has layout ' .. have .. ', the migration writes layout ' .. fp)
end
local _, derr = data_claimed(dkey, ARGV[5], board)
if derr then return derr end
local cur = redis.call('HGET', prog, 'plan')
if cur == plan then
  return redis.call('HMGET', prog, 'phase', 'cursor', 'done')
end
if cur and not inplace then
  return redis.error_reply('MIGRATE_CONFLICT ' .. board .. ' holds a migration of another plan (' .. cur .. '); rerun it with the same options, or delete ' .. board .. ' and ' .. prog)
end
if cur then
  redis.call('DEL', board, aux, dkey, prog) -- the temporary copy of another plan: start again
elseif inplace and redis.call('EXISTS', board, aux, dkey) > 0 then
  return redis.error_reply('MIGRATE_CONFLICT ' .. board .. ' exists but no migration wrote it; delete it, or move it away')
end
redis.call('HSET', prog, 'plan', plan, 'phase', 'copy', 'cursor', '0', 'done', '0')
return {'copy', '0', '0'}
`)

// copyScript writes one batch: each entry whose id the destination lacks, with its data; an
// id the destination holds (copied before, or written by a new-layout writer at -to-key) is
// merged by the rule ARGV[8]: "" or "new" keeps the destination's entry, "best" keeps
// whichever ranks first (a higher score, or on equal scores the member that sorts after, as
// Best does), the source's entry ranked as its rival pair when it has one (Plan.rival: it
// replaces the destination's only when its rival ranks strictly first), "same" refuses an
// entry that differs (MIGRATE_MERGE id). It then records the scan cursor after the batch, and
// gives the destination's keys the source's expiry.
// ARGV: plan, new fingerprint, prefix (1/0), the cursor the batch started at, the cursor
// after it ("0" when the scan ended), entries read, new data fingerprint (empty without
// data), merge rule, the source's expiry (Unix ms, or -1 for none), whether source entries
// carry data (1/0: when not, a replaced entry keeps the destination's data), then id, score,
// member, data, rival score, rival member sextuples (data empty for none, rival empty for
// none). It returns {copied, kept, copied with data, replaced}.
var copyScript = redis.NewScript(claimed + `
local board, aux, prog, dkey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local plan, fp, prefix, dfp = ARGV[1], ARGV[2], ARGV[3] == '1', ARGV[7]
local merge, expireat, srcdata = ARGV[8], tonumber(ARGV[9]), ARGV[10] == '1'
local p = redis.call('HMGET', prog, 'plan', 'phase', 'cursor')
if p[1] ~= plan or p[2] ~= 'copy' or p[3] ~= ARGV[4] then
  return redis.error_reply('MIGRATE_CONFLICT another migration of ' .. board .. ' is running (its progress moved)')
end
local have = claimed(aux, prefix)
if have and have ~= fp then
  return redis.error_reply('RANKGEN_LAYOUT_MISMATCH ' .. board .. ' has layout ' .. have .. ', the migration writes layout ' .. fp)
end
local dhave, derr = data_claimed(dkey, dfp, board)
if derr then return derr end
-- bytes_gt compares members as Redis does (memcmp, then length), not by the server's locale.
local function bytes_gt(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x > y end
  end
  return #a > #b
end
local copied, kept, withdata, replaced = 0, 0, 0, 0
for i = 11, #ARGV, 6 do
  local id, score, member, data = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local rscore, rmember = ARGV[i + 4], ARGV[i + 5]
  if rscore == '' then rscore, rmember = score, member end
  local cur, curscore
  if prefix then
    cur = redis.call('HGET', aux, id)
    if cur then curscore = redis.call('ZSCORE', board, cur) end
  else
    cur, curscore = id, redis.call('ZSCORE', board, id)
  end
  local write = not curscore
  local s, rs, cs = tonumber(score), tonumber(rscore), curscore and tonumber(curscore)
  if curscore and not (cs == s and cur == member) then -- scores compared as numbers, not texts
    if merge == 'same' then
      return redis.error_reply('MIGRATE_MERGE ' .. id)
    elseif merge == 'best' and (rs > cs or (rs == cs and bytes_gt(rmember, cur))) then
      write = true
      replaced = replaced + 1
      if cur ~= member then redis.call('ZREM', board, cur) end
      if data == '' and srcdata then redis.call('HDEL', dkey, id) end -- the kept entry has none
    end
  end
  if write then
    redis.call('ZADD', board, score, member)
    if prefix then redis.call('HSET', aux, id, member) end
    if data ~= '' then
      redis.call('HSET', dkey, id, data)
      withdata = withdata + 1
    end
    if not curscore then copied = copied + 1 end
  else
    kept = kept + 1
  end
end
if not have then
  if prefix then redis.call('HSET', aux, '', fp) else redis.call('SET', aux, fp) end
end
if withdata > 0 and not dhave then redis.call('HSET', dkey, '', dfp) end
redis.call('HINCRBY', prog, 'done', ARGV[6])
redis.call('HSET', prog, 'cursor', ARGV[5])
if ARGV[5] == '0' then redis.call('HSET', prog, 'phase', 'copied') end
if expireat > 0 then
  for _, k in ipairs({board, aux, dkey, prog}) do
    if redis.call('PEXPIREAT', k, expireat, 'NX') == 0 then redis.call('PEXPIREAT', k, expireat, 'GT') end
  end
end
return {copied, kept, withdata, replaced}
`)

// switchScript replaces the source with the copy, atomically. KEYS: source board, its index,
// its meta key, the copy, the copy's side key, the progress record, the source's data hash,
// the copy's, the fence, its change log. ARGV: plan, old fingerprint, old prefix (1/0), new
// fingerprint, new prefix (1/0), old and new data fingerprints (empty without data). The fence
// must stand, closed, under this plan (else writers may have written since the copy began),
// and the change log be empty (every change replayed); the fence is lifted with the switch. It
// returns {entries, writes the fence refused, Unix ms it stood since, Unix ms now, Unix ms it
// closed}. Both of the source's side keys
// end up claiming the new fingerprint, so writers of either kind of old layout are refused
// (RANKGEN_LAYOUT_MISMATCH, or NOT_INDEXED); the data hash is replaced by the copy's (deleted
// when the new layout has no data, untouched when neither has); the source's time to live
// carries over.
var switchScript = redis.NewScript(claimed + `
local src, idx, meta, tmp, tmpaux, prog = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local sdata, tdata, fence, log = KEYS[7], KEYS[8], KEYS[9], KEYS[10]
local plan, oldfp, oldprefix, newfp, newprefix = ARGV[1], ARGV[2], ARGV[3] == '1', ARGV[4], ARGV[5] == '1'
local olddfp, newdfp = ARGV[6], ARGV[7]
local data = olddfp ~= '' or newdfp ~= ''
local function data_count(key)
  local n = redis.call('HLEN', key)
  if redis.call('HEXISTS', key, '') == 1 then n = n - 1 end
  return n
end
local p = redis.call('HMGET', prog, 'plan', 'phase')
if p[1] ~= plan or p[2] ~= 'copied' then
  return redis.error_reply('MIGRATE_CONFLICT another migration of ' .. src .. ' is running (its progress moved)')
end
local f = redis.call('HMGET', fence, 'plan', 'open', 'refused', 'since', 'logged', 'closed')
if f[1] ~= plan or f[2] or f[5] then
  return redis.error_reply('MIGRATE_CHANGED the fence of ' .. src .. ' lapsed (or is open) since the copy began: writers may have written what was copied')
end
if redis.call('EXISTS', log) == 1 then
  return redis.error_reply('MIGRATE_CHANGED the change log of ' .. src .. ' holds ids not copied again')
end
if redis.call('EXISTS', tmpaux) == 0 then
  return redis.error_reply('MIGRATE_CONFLICT the copy of ' .. src .. ' has no layout claim; rerun to copy it again')
end
local have
if oldprefix then have = redis.call('HGET', idx, '') else have = redis.call('GET', meta) end
if have and have ~= oldfp then
  return redis.error_reply('MIGRATE_CHANGED ' .. src .. ' now has layout ' .. have .. ', not ' .. oldfp)
end
local n, m = redis.call('ZCARD', src), redis.call('ZCARD', tmp)
if n ~= m then
  return redis.error_reply('MIGRATE_CHANGED ' .. src .. ' has ' .. n .. ' entries but its copy ' .. m)
end
if data then
  local dhave = redis.call('HGET', sdata, '')
  if dhave and string.match(dhave, '[^,]*$') ~= olddfp then
    return redis.error_reply('MIGRATE_CHANGED ' .. src .. ' now has data of format ' .. dhave .. ', not ' .. olddfp)
  end
  if olddfp ~= '' and newdfp ~= '' and data_count(sdata) ~= data_count(tdata) then
    return redis.error_reply('MIGRATE_CHANGED ' .. src .. ' has data for ' .. data_count(sdata) .. ' ids but its copy for ' .. data_count(tdata))
  end
end
-- The board's time to live: its sorted set's or, on a board whose entries were all removed,
-- its side keys'.
local ttl = -2
for _, k in ipairs({src, idx, meta, sdata}) do
  if ttl == -2 then ttl = redis.call('PTTL', k) end
end
-- UNLINK: a large board is freed after the switch, not while writers wait for it.
redis.call('UNLINK', src, idx, meta, prog, fence)
if m > 0 then redis.call('RENAME', tmp, src) end
if data then
  redis.call('UNLINK', sdata)
  if redis.call('EXISTS', tdata) == 1 then redis.call('RENAME', tdata, sdata) end
end
if newprefix then
  redis.call('RENAME', tmpaux, idx)
  if not oldprefix then redis.call('SET', meta, newfp) end
else
  redis.call('RENAME', tmpaux, meta)
  if oldprefix then redis.call('HSET', idx, '', newfp) end
end
if ttl > 0 then
  for _, k in ipairs({src, idx, meta}) do redis.call('PEXPIRE', k, ttl) end
  if data then redis.call('PEXPIRE', sdata, ttl) end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return {m, tonumber(f[3]) or 0, tonumber(f[4]) or 0, now, tonumber(f[6]) or now}
`)

// run runs a migration script, mapping its MIGRATE_ error replies to ErrConflict and
// ErrChanged and its RANKGEN_ ones as the runtime does.
func run(ctx context.Context, c redis.Scripter, s *redis.Script, keys []string, args ...any) (any, error) {
	v, err := rankgenrt.Run(ctx, c, s, keys, args...)
	var re redis.Error
	if err == nil || !errors.As(err, &re) {
		return v, err
	}
	msg := re.Error()
	for _, code := range []struct {
		prefix string
		kind   error
	}{{"MIGRATE_CONFLICT ", ErrConflict}, {"MIGRATE_CHANGED ", ErrChanged}, {"MIGRATE_MERGE ", ErrConflict}} {
		if detail, ok := strings.CutPrefix(msg, code.prefix); ok {
			if i := strings.Index(detail, " script: "); i >= 0 {
				detail = detail[:i]
			}
			return nil, &stateError{kind: code.kind, code: strings.TrimSpace(code.prefix), detail: detail}
		}
	}
	return nil, err
}

// stateError is a migration script's refusal; it matches its sentinel with errors.Is.
type stateError struct {
	kind   error
	code   string // the script's reply code, MIGRATE_…
	detail string
}

func (e *stateError) Error() string { return e.kind.Error() + ": " + e.detail }

func (e *stateError) Unwrap() error { return e.kind }

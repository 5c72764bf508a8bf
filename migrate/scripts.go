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

// ErrChanged: the source changed under the migration (its entry count or layout differs from
// the copy's), so the copy was not switched in. Stop the writers of the old layout and rerun.
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
  if have and have ~= dfp then
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

// copyScript writes one batch: each entry whose id the destination lacks (an id it has was
// copied before, or written by a new-layout writer, and is kept) with its data, then the scan
// cursor after the batch. ARGV: plan, new fingerprint, prefix (1/0), the cursor the batch
// started at, the cursor after it ("0" when the scan ended), entries read, new data
// fingerprint (empty without data), then id, score, member, data quadruples (data empty for
// none). It returns {copied, kept, copied with data}.
var copyScript = redis.NewScript(claimed + `
local board, aux, prog, dkey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local plan, fp, prefix, dfp = ARGV[1], ARGV[2], ARGV[3] == '1', ARGV[7]
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
local copied, kept, withdata = 0, 0, 0
for i = 8, #ARGV, 4 do
  local id, score, member, data = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local present
  if prefix then present = redis.call('HEXISTS', aux, id) == 1 else present = redis.call('ZSCORE', board, id) end
  if present then
    kept = kept + 1
  else
    redis.call('ZADD', board, score, member)
    if prefix then redis.call('HSET', aux, id, member) end
    if data ~= '' then
      redis.call('HSET', dkey, id, data)
      withdata = withdata + 1
    end
    copied = copied + 1
  end
end
if not have then
  if prefix then redis.call('HSET', aux, '', fp) else redis.call('SET', aux, fp) end
end
if withdata > 0 and not dhave then redis.call('HSET', dkey, '', dfp) end
redis.call('HINCRBY', prog, 'done', ARGV[6])
redis.call('HSET', prog, 'cursor', ARGV[5])
if ARGV[5] == '0' then redis.call('HSET', prog, 'phase', 'copied') end
return {copied, kept, withdata}
`)

// switchScript replaces the source with the copy, atomically. KEYS: source board, its index,
// its meta key, the copy, the copy's side key, the progress record, the source's data hash,
// the copy's. ARGV: plan, old fingerprint, old prefix (1/0), new fingerprint, new prefix
// (1/0), old and new data fingerprints (empty without data). Both of the source's side keys
// end up claiming the new fingerprint, so writers of either kind of old layout are refused
// (RANKGEN_LAYOUT_MISMATCH, or NOT_INDEXED); the data hash is replaced by the copy's (deleted
// when the new layout has no data, untouched when neither has); the source's time to live
// carries over.
var switchScript = redis.NewScript(claimed + `
local src, idx, meta, tmp, tmpaux, prog = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local sdata, tdata = KEYS[7], KEYS[8]
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
if redis.call('EXISTS', tmpaux) == 0 then
  return redis.error_reply('MIGRATE_CONFLICT the copy ' .. tmp .. ' has no layout claim (' .. tmpaux .. ')')
end
local have
if oldprefix then have = redis.call('HGET', idx, '') else have = redis.call('GET', meta) end
if have and have ~= oldfp then
  return redis.error_reply('MIGRATE_CHANGED ' .. src .. ' now has layout ' .. have .. ', not ' .. oldfp)
end
local n, m = redis.call('ZCARD', src), redis.call('ZCARD', tmp)
if n ~= m then
  return redis.error_reply('MIGRATE_CHANGED ' .. src .. ' has ' .. n .. ' entries, its copy ' .. m)
end
if data then
  local dhave = redis.call('HGET', sdata, '')
  if dhave and dhave ~= olddfp then
    return redis.error_reply('MIGRATE_CHANGED ' .. sdata .. ' now has data of format ' .. dhave .. ', not ' .. olddfp)
  end
  if olddfp ~= '' and newdfp ~= '' and data_count(sdata) ~= data_count(tdata) then
    return redis.error_reply('MIGRATE_CHANGED ' .. sdata .. ' holds data for ' .. data_count(sdata) .. ' ids, its copy ' .. data_count(tdata))
  end
end
local ttl = redis.call('PTTL', src)
redis.call('DEL', src, idx, meta, prog)
if m > 0 then redis.call('RENAME', tmp, src) end
if data then
  redis.call('DEL', sdata)
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
return m
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
	for code, kind := range map[string]error{"MIGRATE_CONFLICT ": ErrConflict, "MIGRATE_CHANGED ": ErrChanged} {
		if detail, ok := strings.CutPrefix(msg, code); ok {
			if i := strings.Index(detail, " script: "); i >= 0 {
				detail = detail[:i]
			}
			return nil, &stateError{kind: kind, detail: detail}
		}
	}
	return nil, err
}

// stateError is a migration script's refusal; it matches its sentinel with errors.Is.
type stateError struct {
	kind   error
	detail string
}

func (e *stateError) Error() string { return e.kind.Error() + ": " + e.detail }
func (e *stateError) Unwrap() error { return e.kind }

-- rankgen's Lua head: what every generated library's functions share, whatever the layout.
--
-- A generated <stem>.rankgen.lua file holds only its layout's part (constants, score codec,
-- accessors, the bodies that vary by layout, and its functions' registrations); the runtime
-- composes the library as "#!lua name=<LIBRARY>", this head, then the part, and names it with a
-- hash of both, so that a release that changes the head gives every library a new name and the
-- versions coexist on one server, while no generated file repeats the head.
--
-- Layout values are never written here. A part calls use_layout{...} before it registers its
-- functions; each wrapper (bound, checked, found, write) keeps the layout it was made under and,
-- as a call starts, sets the running call's values below from it (bind): a call runs alone, as
-- the ack state's upvalues already assume. One library may so hold several layouts' parts over
-- this one head.
--
-- Keys, one slot: KEYS[1] the board (a sorted set); KEYS[2] its index (a hash id -> member,
-- whose field "" holds the layout fingerprint) on a layout with a member prefix, else its meta
-- key (the layout fingerprint); KEYS[3] a write's ack key (its token's record: runtime.AckKey;
-- reads take the base); KEYS[4] its migration fence (runtime.FenceKey); KEYS[5], on a layout
-- with entry data, its data (a hash id -> the entry's encoded data, whose field "" holds the
-- data format's fingerprint). Every write function takes first ARGV[1], ARGV[2]: the expiry
-- mode ('', 'px' or 'pxat') and its milliseconds; ARGV[3], ARGV[4]: the call's idempotency
-- token, and how many seconds tokens are remembered (0 = off) (runtime.WriteHead).

-- Lua's own libraries are out of reach while a library loads: each call binds them first.
local floor, fmt, sub

-- The running call's layout (see use_layout): its fingerprint; whether its members carry a prefix
-- (an index maps ids to members); whether it is a season's board (a write past the board's
-- expiry is refused); its data format's fingerprint (nil: no entry data), the chain of its data
-- fields' prefixes' fingerprints (comma-separated, ending with it) and how many data fields it
-- has; and the part's owned (prefixed layouts) and data_of (layouts with data).
local FINGERPRINT, PREFIXED, SEASONAL, DATA_FINGERPRINT, DATA_CHAIN, DATA_FIELDS, owned, data_of

-- logs: while rankgen migrate copies a board (its fence logging this layout's writes), the
-- prefix of the board's side keys (up to its last ':') -> the fence's expiry in ms, for each
-- board the running call writes (fenced sets it); nil, the usual case, when none.
local logs

-- registering is the layout the part now registering its functions declared; bound_layout the
-- one whose values the upvalues above hold.
local registering, bound_layout

-- parts: in a package of boards, each board by name: its layout, its functions' callbacks by
-- operation (fns), and where each write's own arguments start (from), which a submission calls;
-- for a board whose layout replaces another, previous: the part of that layout (previous_part),
-- whose board_of names the board.
-- froms: each write callback's from, as write made it.
local parts, froms = {}, {}

-- planning: while a submission runs its steps, the writes they make, queued in order, each with
-- the layout and change logs it was made under, to be made once every step has accepted; nil
-- otherwise, and then every write is made at once.
local planning

-- use_layout declares the layout of the functions a part registers after it: fingerprint,
-- prefixed, seasonal, data_fingerprint, data_chain, data_fields, owned, data_of, as above, and
-- board: in a package of boards (several layouts' parts in one library), the board's name, which
-- its functions' names carry.
local function use_layout(values)
  registering = values
  if values.board then
    parts[values.board] = {layout = values, fns = {}, from = {}}
  end
end

-- bind starts a call of a function of layout lay: Lua's libraries, then the layout's values. They
-- stay bound between calls (upvalues of the library's chunk), so a call of the layout the last
-- call bound compares one value. The last call's change logs (logs, above) are forgotten.
local function bind(lay)
  logs = nil
  if lay ~= bound_layout then
    floor, fmt, sub = math.floor, string.format, string.sub
    FINGERPRINT, PREFIXED, SEASONAL = lay.fingerprint, lay.prefixed, lay.seasonal
    DATA_FINGERPRINT, DATA_CHAIN, DATA_FIELDS = lay.data_fingerprint, lay.data_chain, lay.data_fields
    owned, data_of = lay.owned, lay.data_of
    bound_layout = lay
  end
end

-- deferred reports whether f(...) was queued for the end of the running submission (planning)
-- rather than to be run now.
local function deferred(f, ...)
  if not planning then
    return false
  end
  planning[#planning + 1] = {lay = bound_layout, logs = logs, f = f, n = select('#', ...), ...}
  return true
end

-- register registers the library's function for operation op: <LIBRARY>_<op>, LIBRARY being the
-- library's name, which the runtime defines above this head; <LIBRARY>_<board>_<op> for a board
-- of a package.
local function register(op, flags, callback)
  local board = registering and registering.board
  if board then
    parts[board].fns[op], parts[board].from[op] = callback, froms[callback]
  end
  local name = board and (LIBRARY .. '_' .. board .. '_' .. op) or (LIBRARY .. '_' .. op)
  redis.register_function{function_name = name, flags = flags, callback = callback}
end

-- many calls cmd on key with list's items in chunks below Lua's stack limit (pairs kept whole):
-- the replies as one list, or the sum of counts.
local function many(cmd, key, list)
  if #list == 0 then
    return {}
  elseif #list <= 4000 then
    return redis.call(cmd, key, unpack(list))
  end
  local out, count = {}, nil
  for i = 1, #list, 4000 do
    local r = redis.call(cmd, key, unpack(list, i, math.min(i + 3999, #list)))
    if type(r) == 'number' then
      count = (count or 0) + r
    else
      for j = 1, #r do
        out[#out + 1] = r[j]
      end
    end
  end
  return count or out
end

-- bytes_gt: a sorts after b as Redis compares members (memcmp, then length; not Lua's locale).
local function bytes_gt(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x > y
    end
  end
  return #a > #b
end

-- with returns a copy of the digits p with digit i set to d.
local function with(p, i, d)
  local q = {unpack(p)}
  q[i] = d
  return q
end

-- unindexed refuses a board with entries but no index (fp nil): looking an id up needs it.
-- ZCARD refuses a board key of another type (WRONGTYPE) rather than read it as empty.
local function unindexed(board, fp)
  if not fp and redis.call('ZCARD', board) > 0 then
    return redis.error_reply('RANKGEN_NOT_INDEXED the board has entries but no index of layout ' .. FINGERPRINT .. '; adopt it with rankgen reindex (Board.Reindex)')
  end
  return nil
end

-- layout_refused refuses a board whose fingerprint fp is another layout's (verb: 'reads' or
-- 'writes'); given aux, an unclaimed board's other side key (the meta key of a prefixed layout's
-- board, else its index) is checked too, as a migration may fill it. On a prefixed layout a
-- write also refuses an unindexed board.
local function layout_refused(board, fp, verb, aux)
  if fp and fp ~= FINGERPRINT then
    return redis.error_reply('RANKGEN_LAYOUT_MISMATCH board has layout ' .. fp .. ', this code ' .. verb .. ' layout ' .. FINGERPRINT)
  end
  if not fp and aux then
    local other
    if PREFIXED then
      other = redis.call('GET', sub(aux, 1, -4) .. 'meta')
    else
      other = redis.call('HGET', sub(aux, 1, -5) .. 'idx', '')
    end
    if other and other ~= FINGERPRINT then
      return redis.error_reply('RANKGEN_LAYOUT_MISMATCH board has layout ' .. other .. ', this code ' .. verb .. ' layout ' .. FINGERPRINT)
    end
  end
  if PREFIXED and verb == 'writes' then
    return unindexed(board, fp)
  end
  return nil
end

-- whole returns the whole number arg, or nil and the error (given span: of a digit past 0..span).
local function whole(arg, name, range, span)
  local a = tonumber(arg)
  if not a or a ~= floor(a) then
    return nil, 'RANKGEN_OUT_OF_RANGE field=' .. name .. ' value=' .. arg .. range
  end
  if span and (a < 0 or a > span) then
    return nil, 'RANKGEN_OUT_OF_RANGE field=' .. name .. ' value=digit:' .. arg .. range
  end
  return a
end

-- set_digit makes the apply function of a set of field r (F.range_<field>) or, keep given, of a
-- max (true) or min, which an id's first write (fresh) sets.
local function set_digit(r, keep)
  return function(d, arg, fresh)
    local a, err = whole(arg, r.name, r.range, r.span)
    if not a or keep == nil or fresh then
      return a, err
    end
    return keep and math.max(d, a) or math.min(d, a)
  end
end

-- add_digit makes the apply function of an add to field r (sign -1: ascending); past an end of its
-- range it fails or, saturate, stops there.
local function add_digit(r, sign, saturate)
  return function(d, arg)
    local a, err = whole(arg, r.name, r.range)
    if not a then
      return nil, err
    end
    local nd = d + sign * a
    if nd >= 0 and nd <= r.span then
      return nd
    elseif saturate then
      return nd < 0 and 0 or r.span
    end
    return nil, 'RANKGEN_OVERFLOW field=' .. r.name .. ' delta=' .. arg .. r.range
  end
end

-- fenced refuses a write while rankgen migrate holds the board's fence (KEYS[4], expiring unless
-- renewed), but for the layout it names open (its check pass) or logged (its copy: the write
-- goes on, logging the ids it changes beside the fence); the refusal, counted, says to retry at
-- the fence's eta (or 2..100 ms after it when late, never past the fence's expiry).
local function fenced(key)
  local ms = redis.call('PTTL', key)
  if ms == -2 then
    return nil
  end
  local f = redis.call('HMGET', key, 'open', 'layout', 'eta', 'logged')
  if f[4] == FINGERPRINT then
    logs = logs or {}
    logs[sub(key, 1, -14)] = ms -- the side keys' prefix: key ends with 'migrate:fence'
    return nil
  end
  if f[1] == FINGERPRINT then
    return nil
  end
  redis.call('HINCRBY', key, 'refused', 1)
  local wait, eta = 100, tonumber(f[3])
  if eta then
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    wait = math.min(math.max(math.abs(eta - now), 2), 100)
  end
  if ms >= 0 then
    wait = math.min(wait, ms)
  end
  return redis.error_reply(string.format('RANKGEN_MIGRATING wait=%dms layout=%s', wait, f[2] or '?'))
end

-- logged returns the change log of the board whose side key (its index, meta key or data hash)
-- is side, and its fence's expiry in ms, while the running call must log the ids it changes
-- there; else nil.
local function logged(side)
  if not logs then
    return nil
  end
  local prefix = string.match(side, '^(.*:)')
  local ms = prefix and logs[prefix]
  if not ms then
    return nil
  end
  return prefix .. 'migrate:log', ms
end

-- log_changes adds to the change log of the board of side key side (see logged) the ids of list
-- at from, from + step, ... ('' skipped: the fingerprint's field); the log outlives the fence by
-- a minute (migrate's logSlack), as the migration's renewals keep it, so that no change it holds
-- is lost while the fence stands.
local function log_changes(side, list, from, step)
  local log, ms = logged(side)
  if not log then
    return
  end
  local ids = {}
  for i = from or 1, #list, step or 1 do
    if list[i] ~= '' then
      ids[#ids + 1] = list[i]
    end
  end
  if #ids == 0 then
    return
  end
  many('SADD', log, ids)
  if ms >= 0 then
    redis.call('PEXPIRE', log, ms + 60000)
  end
end

-- Exactly once: a call records its reply under its token's own ack key (KEYS[3]) for one window,
-- with its operation, layout and call_digest, so that only a resend of that very call gets it.
-- A call runs alone: these hold the running call's, set by open_write and read by done.
local ack_window, ack_key, ack_op, ack_call, call_time

-- server_time is Redis's clock (TIME's reply), read at most once a call.
local function server_time()
  if not call_time then
    call_time = redis.call('TIME')
  end
  return call_time
end

-- server_now is Redis's clock in Unix microseconds (one TIME a call).
local function server_now()
  local t = server_time()
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- stamped returns P and member with update u's stamps (u.stamps: every stamped field but its
-- own) set to now, or nil, nil and the first error.
local function stamped(u, p, m, argv)
  for _, stamp in ipairs(u.stamps) do
    local err
    p, m, err = stamp(p, m, argv)
    if err then
      return nil, nil, err
    end
  end
  return p, m
end

-- call_digest identifies the arguments from position from on: their msgpack encoding (no two lists
-- alike) when under 40 bytes, else its 40-byte SHA-1 in hex, so the two never meet.
local function call_digest(argv, from)
  local n, parts = #argv, {}
  for i = from, n, 4000 do
    parts[#parts + 1] = cmsgpack.pack(unpack(argv, i, math.min(i + 3999, n)))
  end
  local text = table.concat(parts)
  if #text < 40 then
    return text
  end
  return redis.sha1hex(text)
end

-- find_record returns the token's record, or nil, and whether the fence may stand; it also reads
-- the two window hashes earlier versions kept (one EXISTS for them and the fence).
local function find_record(token, fence)
  local first = redis.call('GET', ack_key)
  if first then
    return first, true
  end
  local base = sub(ack_key, 1, -#token - 2)
  if redis.call('EXISTS', fence, base .. '0', base .. '1') == 0 then
    return nil, false
  end
  return redis.call('HGET', base .. '0', token) or redis.call('HGET', base .. '1', token), true
end

-- answer returns the record's first reply when it is of this very call (op, layout, ack_call),
-- else why not; an earlier version's record, which cannot show its call, is refused (unknown).
local function answer(record, op)
  local first, reply, layout, call = cmsgpack.unpack(record)
  local why = (first ~= op and 'operation') or (not layout and 'unknown')
    or (layout ~= FINGERPRINT and 'layout') or (call ~= ack_call and 'arguments')
  if not why then
    return reply
  end
  return redis.error_reply('RANKGEN_TOKEN_REUSED first=' .. (type(first) == 'string' and first or '?') .. ' op=' .. op
    .. ' why=' .. why .. (why == 'layout' and ' layout=' .. (type(layout) == 'string' and layout or '?') or ''))
end

-- open_write returns the reply to give at once (a resend's first reply, or a refusal), or nil
-- when the call of op (its own arguments from position from on) goes on. On a season's board a
-- write at or past the board's expiry (pxat) would vanish at once: it is refused.
local function open_write(keys, argv, op, from, digest)
  local token = argv[3]
  ack_window, ack_key, ack_op, call_time = tonumber(argv[4]), keys[3], op, nil
  if not keys[4] then
    return redis.error_reply('RANKGEN_BAD_KEYS a write takes the board, its index or meta key, its ack key and its fence (runtime.WriteKeys)')
  end
  local fence_may_stand = true
  if ack_window > 0 then
    -- A key that is not the token's own would answer for every token recorded under it.
    if sub(ack_key, -#token - 1) ~= ':' .. token then
      return redis.error_reply('RANKGEN_BAD_ACK_KEY the ack key does not end with ":" and the token (runtime.AckKey)')
    end
    ack_call = digest or call_digest(argv, from)
    local first
    first, fence_may_stand = find_record(token, keys[4])
    if first then
      return answer(first, op)
    end
  end
  -- A fence refuses the write before anything is written; a resend was answered above.
  local fence = fence_may_stand and fenced(keys[4])
  if fence then
    return fence
  end
  if SEASONAL then
    local ms = argv[2]
    if argv[1] == 'pxat' then
      local t = server_time()
      local now_ms = tonumber(t[1]) * 1000 + floor(tonumber(t[2]) / 1000)
      if tonumber(ms) <= now_ms then
        return redis.error_reply(fmt('RANKGEN_SEASON_EXPIRED expiry=%sms now=%dms', ms, now_ms))
      end
    end
  end
  return nil
end

-- expire applies a successful write's expiry (to the data hash too, on a layout with data).
local function expire(keys, argv)
  local mode, ms = argv[1], argv[2]
  local cmd = (mode == 'px' and 'PEXPIRE') or (mode == 'pxat' and 'PEXPIREAT')
  if not cmd or deferred(expire, keys, argv) then
    return
  end
  redis.call(cmd, keys[1], ms)
  redis.call(cmd, keys[2], ms)
  if DATA_FINGERPRINT then
    redis.call(cmd, keys[5], ms)
  end
end

-- done applies a successful write's expiry, records its reply r under its token, and returns r.
local function done(keys, argv, r)
  expire(keys, argv)
  if ack_window > 0 then
    redis.call('SET', ack_key, cmsgpack.pack(ack_op, r, FINGERPRINT, ack_call), 'EX', ack_window)
  end
  return r
end

-- bound and checked make a read's callback: checked, for a read of places, checks the layout first.
local function bound(body)
  local lay = registering
  return function(KEYS, ARGV)
    bind(lay)
    return body(KEYS, ARGV)
  end
end

local function checked(body)
  local lay = registering
  return function(KEYS, ARGV)
    bind(lay)
    local fp
    if PREFIXED then
      fp = redis.call('HGET', KEYS[2], '')
    else
      fp = redis.call('GET', KEYS[2])
    end
    return layout_refused(KEYS[1], fp, 'reads') or body(KEYS, ARGV)
  end
end

-- write makes a write's callback: the token and fence first, then body(KEYS, ARGV, u), u being a
-- shared body's table (F.<operation>).
local function write(op, from, body, u)
  local lay = registering
  local callback = function(KEYS, ARGV)
    bind(lay)
    return open_write(KEYS, ARGV, op, from) or body(KEYS, ARGV, u)
  end
  froms[callback] = from
  return callback
end

-- found makes the callback of a read of id ARGV[1]'s entry: body(KEYS, ARGV, v, m) gets what cmd
-- says of its member m (no entry: nil).
local function found(cmd, body)
  local lay = registering
  return function(KEYS, ARGV)
    bind(lay)
    local board, id = KEYS[1], ARGV[1]
    if not PREFIXED then
      local refused = layout_refused(board, redis.call('GET', KEYS[2]), 'reads')
      if refused then return refused end
      local v = redis.call(cmd, board, id)
      return v and body(KEYS, ARGV, v, id)
    end
    local got = redis.call('HMGET', KEYS[2], '', id)
    local refused = layout_refused(board, got[1], 'reads') or unindexed(board, got[1])
    if refused or not got[2] then
      return refused or false
    end
    local m = owned(id, got[2])
    local v = redis.call(cmd, board, m)
    if not v then
      return redis.error_reply('RANKGEN_BAD_MEMBER the index maps ' .. id .. ' to a member the board lacks')
    end
    return body(KEYS, ARGV, v, m)
  end
end

-- store writes the score, member pairs zadd (on a prefixed layout, after removing the replaced
-- members zrem, and the index's id, member pairs hset), if any, and claims a board without a
-- fingerprint (fp).
local function store(board, aux, fp, zadd, zrem, hset)
  if #zadd == 0 or deferred(store, board, aux, fp, zadd, zrem, hset) then return end
  if PREFIXED then
    if hset then log_changes(aux, hset, 1, 2) end
    many('ZREM', board, zrem)
    many('ZADD', board, zadd)
    if not fp then
      hset[#hset + 1] = ''
      hset[#hset + 1] = FINGERPRINT
    end
    many('HSET', aux, hset)
  else
    log_changes(aux, zadd, 2, 2) -- the members are the ids
    many('ZADD', board, zadd)
    if not fp then
      redis.call('SET', aux, FINGERPRINT)
    end
  end
end

-- unstore removes the members present (of the ids ids) from board, its index (aux, on a
-- prefixed layout) and its data (dkey, on a layout with data), and returns how many the board
-- held; while a submission plans (planning) it counts them now and removes them at its end.
local function unstore(board, aux, dkey, ids, present)
  if #present == 0 then
    return 0
  end
  if planning then
    local distinct, seen = {}, {}
    for i = 1, #present do
      if not seen[present[i]] then
        seen[present[i]] = true
        distinct[#distinct + 1] = present[i]
      end
    end
    local scores, n = many('ZMSCORE', board, distinct), 0
    for i = 1, #distinct do
      if scores[i] then
        n = n + 1
      end
    end
    deferred(unstore, board, aux, dkey, ids, present)
    return n
  end
  log_changes(aux, ids)
  local removed = many('ZREM', board, present)
  if PREFIXED then
    many('HDEL', aux, ids)
  end
  if dkey then
    many('HDEL', dkey, ids)
  end
  return removed
end

-- lookup_ids reads the fingerprint in aux and each id's member (false: none), and score when
-- scored, in a constant number of calls.
local function lookup_ids(board, aux, ids, scored)
  local members, scores = {}, {}
  if not PREFIXED then
    if not scored then
      return redis.call('GET', aux), ids, scores -- members are the ids
    end
    local fp = redis.call('GET', aux)
    scores = many('ZMSCORE', board, ids)
    for i = 1, #ids do
      members[i] = scores[i] and ids[i]
    end
    return fp, members, scores
  end
  local list = {''}
  for i = 1, #ids do
    list[i + 1] = ids[i]
  end
  local got = many('HMGET', aux, list)
  local fp = got[1]
  local present = {}
  for i = 1, #ids do
    members[i] = got[i + 1]
    if members[i] then
      if fp == FINGERPRINT then
        owned(ids[i], members[i]) -- another layout's index is refused as such by the caller
      end
      present[#present + 1] = members[i]
    end
  end
  if scored then
    local sc = many('ZMSCORE', board, present)
    local j = 0
    for i = 1, #ids do
      if members[i] then
        j = j + 1
        scores[i] = sc[j]
        if not sc[j] then
          error({err = 'RANKGEN_BAD_MEMBER the index maps ' .. ids[i] .. ' to a member the board lacks'})
        end
      end
    end
  end
  return fp, members, scores
end

-- place returns how many entries rank before (cs, cm), and whether cm is there: higher scores
-- by ZCOUNT, equal ones with greater members by walking their band.
local function place(board, cs, cm)
  local s = redis.call('ZSCORE', board, cm)
  if s and tonumber(s) == tonumber(cs) then
    return redis.call('ZREVRANK', board, cm), true
  end
  local pos, off = redis.call('ZCOUNT', board, '(' .. cs, '+inf'), 0
  while true do
    local band = redis.call('ZRANGE', board, cs, cs, 'BYSCORE', 'REV', 'LIMIT', fmt('%d', off), '256')
    local k = 0
    while k < #band and bytes_gt(band[k + 1], cm) do
      k = k + 1
    end
    pos = pos + k
    if k < #band or #band < 256 then
      return pos, false
    end
    off = off + 256
  end
end

-- window returns a page's reply: start, and the entries start..stop (beyond 2^52: to the end),
-- given dkey with their data; positions go as exact integer text.
local function window(board, start, stop, dkey)
  if stop > 2 ^ 52 then stop = -1 end
  local list = redis.call('ZREVRANGE', board, fmt('%d', start), fmt('%d', stop), 'WITHSCORES')
  if dkey then
    return {start, list, data_of(dkey, list)}
  end
  return {start, list}
end

-- The data hash records the stored format of the data it holds, as the chain of fingerprints of
-- its data fields' prefixes, comma-separated (a board written before chains holds one, its
-- last). Code of another format shares the board when one chain extends the other (data fields
-- appended at the end): a newer writer records its longer chain, an older one keeps the fields
-- it does not know. Any other format is refused, never misread.

-- data_newer reports whether the stored chain dfp, compatible with this code's, extends it (nil:
-- not compatible). Chains hold hex fingerprints: plain find compares them whole.
local function data_newer(dfp)
  local last = string.match(dfp, '[^,]*$')
  if string.find(',' .. DATA_CHAIN .. ',', ',' .. last .. ',', 1, true) then
    return false
  elseif string.find(',' .. dfp .. ',', ',' .. DATA_FINGERPRINT .. ',', 1, true) then
    return true
  end
  return nil
end

-- data_format returns the stored format of the data hash dkey (false: none yet), and the
-- refusal of an incompatible one, or nil; verb says what the calling code does.
local function data_format(dkey, verb)
  local dfp = redis.call('HGET', dkey, '')
  if dfp and dfp ~= DATA_CHAIN and data_newer(dfp) == nil then
    return dfp, redis.error_reply('RANKGEN_LAYOUT_MISMATCH the board data has stored format ' .. dfp .. ', this code ' .. verb .. ' ' .. DATA_CHAIN .. ' (neither extends the other by data fields appended at the end: migrate the board)')
  end
  return dfp, nil
end

-- data_tail returns what stored data v holds past its first n fields ('' if nothing, or if v is
-- not well-formed data: readers refuse it anyway).
local function data_tail(v, n)
  local at = 1
  for _ = 1, n do
    local colon = string.find(v, ':', at, true)
    local size = colon and tonumber(sub(v, at, colon - 1))
    if not size then
      return ''
    end
    at = colon + 1 + size
  end
  return sub(v, at)
end

-- keep_tails appends to each new data of the id, data pairs hdata the fields a newer format
-- stored for the id past this code's: an older writer loses none of them.
local function keep_tails(dkey, hdata)
  local ids = {}
  for i = 1, #hdata, 2 do
    ids[#ids + 1] = hdata[i]
  end
  local old = many('HMGET', dkey, ids)
  for j = 1, #ids do
    local tail = old[j] and data_tail(old[j], DATA_FIELDS) or ''
    if tail ~= '' and hdata[2 * j] ~= '' then
      hdata[2 * j] = hdata[2 * j] .. tail
    end
  end
end

-- store_data writes the id, data pairs hdata, when there are any: it records this code's format
-- when the hash has none yet (dfp) or an older one, and keeps a newer one's extra fields.
local function store_data(dkey, dfp, hdata)
  if #hdata == 0 or deferred(store_data, dkey, dfp, hdata) then
    return
  end
  if dfp and dfp ~= DATA_CHAIN and dfp ~= DATA_FINGERPRINT then
    if data_newer(dfp) then
      keep_tails(dkey, hdata)
    else
      dfp = false
    end
  end
  log_changes(dkey, hdata, 1, 2)
  if not dfp then
    hdata[#hdata + 1] = ''
    hdata[#hdata + 1] = DATA_CHAIN
  end
  many('HSET', dkey, hdata)
end

-- A package's submissions: one call that writes several of its boards, each with one of the
-- board's own single writes (a step: the board, the operation and the step's name), under one
-- token, all or nothing. Each step runs as its function would alone, bound to its board's layout
-- and checked by its own guards (layout, fence, season, ranges), but its writes are queued
-- (planning); only when every step has accepted are they made, in order: a step that refuses
-- leaves every board as it was, and the reply names it. The call's keys are its steps' keys in
-- turn (the first step's ack key is the submission's token's), its arguments the write head,
-- then the number of steps and each step's count of keys and arguments, then each step's
-- arguments as its function takes them (no token of its own).

-- previous_part says that board's layout replaces the layout of part, a part of the library of
-- its own: a step of a submission or a removal that writes board may run part's function, for a
-- board still in that layout.
local function previous_part(board, part)
  parts[board].previous, parts[part].board_of = part, board
end

-- step_parts is steps ({board, op, name}) with the part each step runs, which ARGV names from at
-- on: {part, op, name, board}; the part is its board's or its board's previous_part. Or nil and
-- the refusal.
local function step_parts(steps, ARGV, at)
  local out = {}
  for i = 1, #steps do
    local board, part = steps[i][1], ARGV[at + i - 1]
    if part ~= board and not (parts[board] and parts[board].previous == part) then
      bind(parts[steps[1][1]].layout)
      return nil, redis.error_reply('RANKGEN_BAD_KEYS step ' .. steps[i][3] .. ' writes board ' .. board .. ', not ' .. (part or 'none') .. ' (runtime.Submit)')
    end
    out[i] = {part, steps[i][2], steps[i][3], board}
  end
  return out
end

-- run_steps runs every step with planning set: their replies in order, or the refusal of the
-- first that refuses, naming it. A refusal raised as an error is named by at.
local function run_steps(steps, ks, as, at, expired_ok)
  local out = {}
  for i = 1, #steps do
    local part, op, name, board = steps[i][1], steps[i][2], steps[i][3], steps[i][4]
    at[1] = i
    local r = parts[part].fns[op](ks[i], as[i])
    local err = type(r) == 'table' and (r.err or (type(r[1]) == 'string' and sub(r[1], 1, 8) == 'RANKGEN_' and r[1]))
    if err and expired_ok and sub(err, 1, 22) == 'RANKGEN_SEASON_EXPIRED' then
      r, err = 0, nil
    end
    if err then
      return redis.error_reply('RANKGEN_SUBMISSION step=' .. name .. ' board=' .. board .. ' ' .. err)
    end
    out[i] = r
  end
  return out
end

-- flush makes the writes a submission's steps queued, each under its layout and change logs.
local function flush(queue)
  for i = 1, #queue do
    local w = queue[i]
    bind(w.lay)
    logs = w.logs
    w.f(unpack(w, 1, w.n))
  end
end

-- submit runs the call of a submission op of steps (a step: {part, op, name, board}), whose per-step
-- counts of keys and arguments start at ARGV[at]; expired_ok: a step refused because its season's
-- board has expired removes nothing and replies 0 (a removal) rather than refusing the call.
local function submit(op, steps, KEYS, ARGV, at, expired_ok)
  local first = parts[steps[1][1]].layout
  bind(first)
  local ks, as, digests, boards = {}, {}, {}, {}
  local k, a = 1, at + 2 * #steps
  for i = 1, #steps do
    local nk, na = tonumber(ARGV[at + 2 * i - 2]), tonumber(ARGV[at + 2 * i - 1])
    ks[i], as[i] = {unpack(KEYS, k, k + nk - 1)}, {unpack(ARGV, a, a + na - 1)}
    k, a = k + nk, a + na
    if boards[ks[i][1]] then
      return redis.error_reply('RANKGEN_BAD_KEYS steps ' .. boards[ks[i][1]] .. ' and ' .. steps[i][3] .. ' write one board, ' .. ks[i][1])
    end
    boards[ks[i][1]] = steps[i][3]
    -- A step run in its board's previous layout's part is told apart: its reply is in that
    -- layout's terms, so a resend that runs it in the other answers no reply of it.
    local part = steps[i][1] ~= steps[i][4] and (steps[i][1] .. ':') or ''
    digests[i] = part .. call_digest(as[i], parts[steps[i][1]].from[steps[i][2]])
  end
  local refused = open_write(KEYS, ARGV, op, #ARGV + 1, table.concat(digests, ','))
  if refused then
    return refused
  end
  local window, akey, acall = ack_window, ack_key, ack_call
  local at_step = {0}
  planning = {}
  local ok, out = pcall(run_steps, steps, ks, as, at_step, expired_ok)
  local queue = planning
  planning = nil
  if not ok then
    -- A step's command refused (a key of another type, a full server) or its guard raised:
    -- nothing is written; the reply names the step. Redis gives a command's error as text.
    local err = type(out) == 'table' and out.err or out
    local s = steps[at_step[1]]
    if type(err) ~= 'string' or not s then
      error(out, 0)
    end
    return redis.error_reply('RANKGEN_SUBMISSION step=' .. s[3] .. ' board=' .. s[4] .. ' ' .. err)
  end
  if out.err then
    return out
  end
  flush(queue)
  bind(first)
  ack_window, ack_key, ack_op, ack_call = window, akey, op, acall
  return done(KEYS, ARGV, out)
end

-- submission registers the package's submission name: <LIBRARY>_submit_<name>, of steps
-- {board, op, step name}, in order. Its arguments: the write head, the number of steps, the
-- part each step runs (step_parts), then each step's count of keys and of arguments, then the
-- steps' arguments.
local function submission(name, steps)
  local op = 'submit_' .. name
  redis.register_function{function_name = LIBRARY .. '_' .. op, flags = {}, callback = function(KEYS, ARGV)
    if tonumber(ARGV[5]) ~= #steps then
      bind(parts[steps[1][1]].layout)
      return redis.error_reply(fmt('RANKGEN_BAD_KEYS %s takes %d steps, not %s (runtime.Submit)', op, #steps, ARGV[5] or 'none'))
    end
    local run, refused = step_parts(steps, ARGV, 6)
    if not run then
      return refused
    end
    return submit(op, run, KEYS, ARGV, 6 + #steps)
  end}
end

-- removal registers <LIBRARY>_remove_from: the remove of ids from boards of any of the
-- package's layouts in one call, all or nothing, each board's count in order. Its arguments:
-- the write head, the number of boards, each board's name in the package, each one's count of
-- keys and of arguments, then each one's remove arguments. A season's board that has expired
-- holds nothing: it counts 0.
local function removal()
  redis.register_function{function_name = LIBRARY .. '_remove_from', flags = {'allow-oom'}, callback = function(KEYS, ARGV)
    local n, steps = tonumber(ARGV[5]) or 0, {}
    for i = 1, n do
      local part = ARGV[5 + i]
      if not (parts[part] and parts[part].fns.remove) then
        return redis.error_reply('RANKGEN_BAD_KEYS no board ' .. (part or 'none') .. ' in this package')
      end
      local board = parts[part].board_of or part
      steps[i] = {part, 'remove', board .. '#' .. i, board}
    end
    if n == 0 then
      return redis.error_reply('RANKGEN_BAD_KEYS a removal names no board')
    end
    return submit('remove_from', steps, KEYS, ARGV, 6 + n, true)
  end}
end

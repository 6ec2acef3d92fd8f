-- zlink authority scripts. KEYS[1] is the object's hash; every script
-- touches only that key, so it runs on one Redis Cluster slot.
-- Generations, versions and proposals are decimal strings: Lua numbers are
-- doubles, so 64-bit values are compared as strings and incremented digit by
-- digit, never converted. Times are milliseconds (< 2^53, exact as doubles).
local FIELDS = {'st', 'og', 'aog', 'mesh', 'rid', 'ngen', 'lgen', 'lexp', 'ver', 'prop'}

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function fmt(n)
  return string.format('%.0f', n)
end

-- s + 1 for a canonical decimal string (false/nil count as 0).
local function incr(s)
  s = s or '0'
  local out, carry = {}, 1
  for i = #s, 1, -1 do
    local d = string.byte(s, i) - 48 + carry
    if d == 10 then d, carry = 0, 1 else carry = 0 end
    out[#out + 1] = string.char(48 + d)
  end
  if carry == 1 then out[#out + 1] = '1' end
  return string.reverse(table.concat(out))
end

-- {'ok', st, og, aog, mesh, rid, ngen, lgen, lexp, ver, prop, now}
local function record(h, now)
  local r = redis.call('HMGET', h, unpack(FIELDS))
  table.insert(r, 1, 'ok')
  r[#r + 1] = fmt(now)
  return r
end

-- The larger of two canonical decimal strings.
local function dec_max(a, b)
  if #a ~= #b then
    if #a > #b then return a end
    return b
  end
  if a > b then return a end
  return b
end

local function reject(code, a, b, c)
  return {'err', code, a or false, b or false, c or false}
end

-- A replay (the record already carries this proposal: an earlier attempt
-- was applied) writes its proposal again, so the replay is replicated after
-- the attempt it answers for: the WAIT that follows on this connection then
-- confirms that attempt too, whichever connection sent it.
local function replayed(h, prop)
  redis.call('HSET', h, 'prop', prop)
end

-- Replays a write whose proposal the record already carries (its earlier
-- attempt was applied), refuses a stale fence; nil means go ahead.
local function guard(h, og, aog, prop, now)
  local st, cur_og, cur_aog, cur_prop = unpack(redis.call('HMGET', h, 'st', 'og', 'aog', 'prop'))
  if not st then return reject('NOTFOUND') end
  if cur_prop == prop then
    replayed(h, prop)
    return record(h, now)
  end
  if cur_og ~= og or cur_aog ~= aog then return reject('STALE', cur_og, cur_aog) end
  return nil
end

local function in_state(h, a, b)
  local st = redis.call('HGET', h, 'st')
  if st == a or st == b then return nil end
  return reject('STATE', st)
end

-- Bumps the version, records the proposal, answers with the record.
local function stamp(h, prop, now)
  redis.call('HSET', h, 'ver', incr(redis.call('HGET', h, 'ver')), 'prop', prop)
  return record(h, now)
end

-- ARGV: og, aog, lgen, lease_ms, prop
local h, now = KEYS[1], now_ms()
local early = guard(h, ARGV[1], ARGV[2], ARGV[5], now)
if early then return early end
local bad = in_state(h, 'creating', 'ready')
if bad then return bad end
local lgen, lexp = unpack(redis.call('HMGET', h, 'lgen', 'lexp'))
if lgen ~= ARGV[3] then return reject('HOLDER', lgen) end
if tonumber(lexp) <= now then return reject('EXPIRED') end
redis.call('HSET', h, 'lexp', fmt(now + tonumber(ARGV[4])))
return stamp(h, ARGV[5], now)

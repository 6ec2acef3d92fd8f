-- ARGV: og, aog, mesh, rid, ngen, lgen, lease_ms, prop
local h, now = KEYS[1], now_ms()
local early = guard(h, ARGV[1], ARGV[2], ARGV[8], now)
if early then return early end
local bad = in_state(h, 'ready')
if bad then return bad end
redis.call('HSET', h, 'aog', incr(ARGV[2]), 'mesh', ARGV[3], 'rid', ARGV[4],
  'ngen', ARGV[5], 'lgen', ARGV[6], 'lexp', fmt(now + tonumber(ARGV[7])))
return stamp(h, ARGV[8], now)

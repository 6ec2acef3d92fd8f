-- ARGV: og, aog, prop
local h, now = KEYS[1], now_ms()
local early = guard(h, ARGV[1], ARGV[2], ARGV[3], now)
if early then return early end
local bad = in_state(h, 'creating', 'ready')
if bad then return bad end
redis.call('HSET', h, 'st', 'releasing')
return stamp(h, ARGV[3], now)

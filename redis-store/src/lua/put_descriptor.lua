-- ARGV: endpoint, rid, lifecycle generation, security identity.
-- KEYS[1] is the endpoint's descriptor hash. A node's older lifecycle never
-- overwrites a newer one (generations compared as decimal strings: by
-- length, then lexically, which is numeric order for canonical decimals).
local h, now = KEYS[1], now_ms()
local rid, gen = unpack(redis.call('HMGET', h, 'rid', 'gen'))
if rid == ARGV[2] and gen and (#gen > #ARGV[3] or (#gen == #ARGV[3] and gen > ARGV[3])) then
  return {'err', 'OLDDESC', gen}
end
redis.call('HSET', h, 'endpoint', ARGV[1], 'rid', ARGV[2], 'gen', ARGV[3], 'identity', ARGV[4])
return {'desc', ARGV[1], ARGV[2], ARGV[3], ARGV[4], fmt(now)}

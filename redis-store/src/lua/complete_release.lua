-- ARGV: og, aog, prop, retention_ms. The record goes; the version, the last
-- incarnation and the proposal stay for the retention, so a replay is seen,
-- then the whole key expires (create's time floor keeps generations from
-- repeating after that).
local h, now = KEYS[1], now_ms()
local st, prop = unpack(redis.call('HMGET', h, 'st', 'prop'))
if not st then
  if prop == ARGV[3] then
    replayed(h, prop)
    return {'released', fmt(now)}
  end
  return reject('NOTFOUND')
end
local early = guard(h, ARGV[1], ARGV[2], ARGV[3], now)
if early then return early end
local bad = in_state(h, 'releasing')
if bad then return bad end
redis.call('HDEL', h, 'st', 'og', 'aog', 'mesh', 'rid', 'ngen', 'lgen', 'lexp')
redis.call('HSET', h, 'ver', incr(redis.call('HGET', h, 'ver')), 'prop', ARGV[3])
redis.call('PEXPIRE', h, ARGV[4])
return {'released', fmt(now)}

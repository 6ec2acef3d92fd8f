-- ARGV: mesh, rid, ngen, lgen, lease_ms, prop
local h, now = KEYS[1], now_ms()
local st, og, aog, prop, mesh, rid, ngen, lgen = unpack(redis.call('HMGET', h,
  'st', 'og', 'aog', 'prop', 'mesh', 'rid', 'ngen', 'lgen'))
if st then
  if prop == ARGV[6] then
    replayed(h, prop)
    return record(h, now)
  end
  -- The claimant's own earlier create, whose answer was lost (or not
  -- acknowledged by the replicas): it is this attempt's too.
  if st == 'creating' and mesh == ARGV[1] and rid == ARGV[2] and ngen == ARGV[3]
      and lgen == ARGV[4] then
    return stamp(h, ARGV[6], now)
  end
  return reject('EXISTS', st, og, aog)
end
-- The next generation of this ID, and never below the store's time in ms
-- x 1000: after the tombstone (and last_og with it) expired, a new
-- incarnation still gets a generation above every earlier one.
local gen = dec_max(incr(redis.call('HGET', h, 'last_og')), fmt(now * 1000))
redis.call('PERSIST', h)
redis.call('HSET', h, 'st', 'creating', 'og', gen, 'last_og', gen, 'aog', '1',
  'mesh', ARGV[1], 'rid', ARGV[2], 'ngen', ARGV[3], 'lgen', ARGV[4],
  'lexp', fmt(now + tonumber(ARGV[5])))
return stamp(h, ARGV[6], now)

local h, now = KEYS[1], now_ms()
local endpoint, rid, gen, identity = unpack(redis.call('HMGET', h, 'endpoint', 'rid', 'gen', 'identity'))
if not endpoint then return {'none', fmt(now)} end
return {'desc', endpoint, rid, gen, identity, fmt(now)}

local h, now = KEYS[1], now_ms()
if redis.call('HEXISTS', h, 'st') == 0 then return {'none', fmt(now)} end
return record(h, now)

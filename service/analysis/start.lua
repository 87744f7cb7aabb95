-- A worker takes an analysis to compute it, unless another job of it (the player's queue and the
-- hidden-information check's may both hold one) has finished it or is computing it now.
-- KEYS[1] the analysis hash
-- ARGV[1] now (ISO 8601, UTC), ARGV[2] a start touched before this (same form) is taken for dead
-- Returns 'ok' (now started here), 'finished', 'started' (alive elsewhere) or 'gone'.
local status, touched = unpack(redis.call('HMGET', KEYS[1], 'status', 'touched_at'))
if not status then
  return 'gone'
end
if status == 'finished' then
  return 'finished'
end
if status == 'started' and touched and touched >= ARGV[2] then
  return 'started'
end
redis.call('HSET', KEYS[1], 'status', 'started', 'done', 0, 'total', 0, 'error', '', 'touched_at', ARGV[1])
return 'ok'

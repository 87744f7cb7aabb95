-- Admit a player's analysis into the queue of analyses waiting for a worker, unless that queue
-- holds its cap already (service.analysis: one global bound, whatever the limits per client let
-- through).  An entry leaves when its job starts (or fails); one older than the oldest a queue
-- can hold is taken for lost (its job gone) and dropped first.
-- KEYS[1] the waiting analyses (zset: analysis id -> ms admitted)
-- ARGV[1] now (ms), ARGV[2] the cap, ARGV[3] the analysis id, ARGV[4] entries admitted before this (ms) are lost
-- Returns 1 admitted (or already waiting), 0 the queue is full.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[4])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then
  return 1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
return 1

-- A player's report of a game, once per reporter and game (one slot: the reports').
-- KEYS: the set of reporter|game already reported, the report's hash, the index of reports by
-- time, the count of reports by game.  ARGV: reporter|game, report id, ms, game, then the
-- report's fields and values.  Returns 0 (already reported, nothing written) or 1.
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[2], unpack(ARGV, 5))
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
redis.call('ZINCRBY', KEYS[4], 1, ARGV[4])
return 1

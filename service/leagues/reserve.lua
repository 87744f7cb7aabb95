-- A place in a player's leagues, taken before the league's own step (join.lua, create.lua: another
-- slot) so that two joins at once cannot both pass the limit; given back (ZREM) if that step
-- refuses.  The set is a sorted set scored by when each place was taken: a place whose league
-- never had the player is dropped only once it is older than a join takes (``Leagues.mine``),
-- never while its join is still under way.
-- KEYS 1 the player's leagues (league id -> when its place was taken, ms)
-- ARGV 1 league id  2 the most leagues a player may be in  3 now (ms)  4 how long the set is kept
--      (s): as a league, renewed by each join and each read of the player's leagues
-- Returns 2 already there, 1 taken now, 0 the player is in as many leagues as allowed.
redis.call('EXPIRE', KEYS[1], ARGV[4])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 2
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1

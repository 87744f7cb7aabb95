-- A place in a player's leagues, taken before the league's own step (join.lua, create.lua: another
-- slot) so that two joins at once cannot both pass the limit; given back (SREM) if that step refuses.
-- KEYS 1 the player's leagues (set of ids)
-- ARGV 1 league id  2 the most leagues a player may be in
-- Returns 2 already there, 1 taken now, 0 the player is in as many leagues as allowed.
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then
  return 2
end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('SADD', KEYS[1], ARGV[1])
return 1

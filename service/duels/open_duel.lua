-- A friend's run of a duel, one per player: the first run a player opens on it is theirs for good.
-- KEYS 1 the duel (hash)
-- ARGV 1 pid  2 the run id  3 the most friends a duel takes
-- Returns 'ok' (this run is the player's now), 'gone' (expired), 'full', or the run the player
-- opened before.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 'gone'
end
local before = redis.call('HGET', KEYS[1], 'run:' .. ARGV[1])
if before then
  return before
end
if tonumber(redis.call('HGET', KEYS[1], 'friends') or '0') >= tonumber(ARGV[3]) then
  return 'full'
end
redis.call('HSET', KEYS[1], 'run:' .. ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[1], 'friends', 1)
return 'ok'

-- A player opened a run: their key is kept player_keep_days from now, unless it is kept for good
-- (they submitted a game); a key gone meanwhile (the token long idle, still known to a process)
-- is made again, unless the player erased themselves (their token is refused: -1).
-- KEYS[1] the player hash, KEYS[2] set while an erasure is recent; ARGV[1] how long to keep it (s),
-- ARGV[2] now (ISO 8601)
-- Returns 1 if the key was made now.
local ttl = redis.call('TTL', KEYS[1])
if ttl == -2 and redis.call('EXISTS', KEYS[2]) == 1 then
  return -1
end
if ttl == -2 then
  redis.call('HSET', KEYS[1], 'created_at', ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  return 1
end
if ttl >= 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return 0

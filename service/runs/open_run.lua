-- Create a run with its TTL.  A ranked run's id is the player's one ranked run of the day
-- (``ranked_id``): a run already there is the answer.  A ranked run is also noted under its client
-- address (what ops and the flags look at) and counted at the root of the day's tree of paths
-- (which makes that key, so that it has its TTL before play.lua adds to it), and those keys get
-- the run's TTL too: they go with the day's runs.  Its empty line goes in the shard's lines
-- (play.lua keeps it as the run's cards grow: service.runs.around).
-- KEYS[1] run hash, KEYS[2] the shard's ranked runs by address (hash), KEYS[3] the day's paths (hash),
-- KEYS[4] the shard's lines (sorted set)
-- ARGV[1] '1' if ranked, ARGV[2] run id, ARGV[3] TTL (seconds), ARGV[4] the root's field,
-- ARGV[5] the address's field, ARGV[6..] field, value pairs of the run
local ttl = tonumber(ARGV[3])
if ARGV[1] == '1' then
  if redis.call('EXISTS', KEYS[1]) == 1 then
    return {0, ARGV[2]}
  end
  local runs = redis.call('HGET', KEYS[2], ARGV[5])
  redis.call('HSET', KEYS[2], ARGV[5], runs and (runs .. ' ' .. ARGV[2]) or ARGV[2])
  redis.call('EXPIRE', KEYS[2], ttl)
  redis.call('HINCRBY', KEYS[3], ARGV[4], 1)
  redis.call('EXPIRE', KEYS[3], ttl)
  redis.call('ZADD', KEYS[4], 0, ' ' .. string.sub(ARGV[2], 13))
  redis.call('EXPIRE', KEYS[4], ttl)
end
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
redis.call('EXPIRE', KEYS[1], ttl)
return {1, ARGV[2]}

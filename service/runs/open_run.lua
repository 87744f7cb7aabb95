-- Create a run with its TTL; for a ranked run, first claim the player's one ranked run of the
-- day, note the run under its client address (what ops and the flags look at), count it at the
-- root of the day's tree of paths (which makes that key, so that it has its TTL before play.lua
-- adds to it), and give those keys the run's TTL too: they go with the day's runs.
-- KEYS[1] run hash, KEYS[2] the player's ranked-run marker for the day,
-- KEYS[3] the day's ranked runs from this address (list), KEYS[4] the day's paths (hash)
-- ARGV[1] '1' if ranked, ARGV[2] run id, ARGV[3] TTL (seconds), ARGV[4] the root's field,
-- ARGV[5..] field, value pairs of the run
local ttl = tonumber(ARGV[3])
if ARGV[1] == '1' then
  local existing = redis.call('GET', KEYS[2])
  if existing then
    return {0, existing}
  end
  redis.call('SET', KEYS[2], ARGV[2], 'EX', ttl)
  redis.call('RPUSH', KEYS[3], ARGV[2])
  redis.call('EXPIRE', KEYS[3], ttl)
  redis.call('HINCRBY', KEYS[4], ARGV[4], 1)
  redis.call('EXPIRE', KEYS[4], ttl)
end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('EXPIRE', KEYS[1], ttl)
return {1, ARGV[2]}

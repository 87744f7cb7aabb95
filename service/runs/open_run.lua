-- Create a run; for a ranked run, first claim the player's one ranked run of the day, and note
-- the run under its client address (what ops and the flags look at).
-- KEYS[1] run hash, KEYS[2] the player's ranked-run marker for the day,
-- KEYS[3] the day's ranked runs from this address (list)
-- ARGV[1] '1' if ranked, ARGV[2] run id, ARGV[3..] field, value pairs of the run
if ARGV[1] == '1' then
  local existing = redis.call('GET', KEYS[2])
  if existing then
    return {0, existing}
  end
  redis.call('SET', KEYS[2], ARGV[2])
  redis.call('RPUSH', KEYS[3], ARGV[2])
end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
return {1, ARGV[2]}

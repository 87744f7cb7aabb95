-- Append to a run's plays only if nobody appended since we read it (check-and-append).  For a
-- ranked run, also count the player's cards so far in the day's tree of paths: how many runs
-- of the day have played exactly these cards first (a hashed prefix per field), which is how a
-- search of the day's game by many runs shows (service.flags, "explored").  A practice run is
-- kept for its keep from its last play (a ranked run's TTL, its day's, was set as it opened).
-- Actions are stored a character each, play times as Base64 VLQ gaps (service.runs.store).
-- A ranked run's line (its cards so far, then ' ' and its id's tail) is also kept in the shard's
-- lines (a sorted set read by prefix: service.runs.around), the old line replaced.
-- KEYS[1] run hash, KEYS[2] the day's paths (hash), KEYS[3] the shard's lines (sorted set)
-- ARGV[1] how many actions were read, ARGV[2] the actions added, ARGV[3] seat 0's action added,
-- ARGV[4] the play's time as the gap since the last one (VLQ), ARGV[5] the play's time (ms),
-- ARGV[6] '1' if the game is over, ARGV[7] finish time (µs), ARGV[8] '1' if the run is ranked,
-- ARGV[9] the TTL of a practice run (seconds; '0': none to set), ARGV[10] the run id's tail
local run = redis.call('HMGET', KEYS[1], 'plays', 'cards', 'pace')
local cur = run[1]
if not cur or string.len(cur) ~= tonumber(ARGV[1]) then
  return 0
end
local cards = (run[2] or '') .. ARGV[3]
redis.call('HSET', KEYS[1], 'plays', cur .. ARGV[2], 'cards', cards, 'pace', (run[3] or '') .. ARGV[4],
           'last', ARGV[5])
if ARGV[6] == '1' then
  redis.call('HSET', KEYS[1], 'status', 'finished', 'finished_at', ARGV[7])
end
if ARGV[9] ~= '0' then
  redis.call('EXPIRE', KEYS[1], ARGV[9])
end
if ARGV[8] == '1' then
  redis.call('HINCRBY', KEYS[2], string.sub(redis.sha1hex(cards), 1, 16), 1)
  -- the new line in before the old one out: a set left empty would go, and come back without its TTL
  local line = (run[2] or '') .. ' ' .. ARGV[10]
  if redis.call('ZSCORE', KEYS[3], line) then
    redis.call('ZADD', KEYS[3], 0, cards .. ' ' .. ARGV[10])
    redis.call('ZREM', KEYS[3], line)
  end
end
return 1

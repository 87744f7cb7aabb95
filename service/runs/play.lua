-- Append to a run's plays only if nobody appended since we read it (check-and-append).  For a
-- ranked run, also count the player's cards so far in the day's tree of paths: how many runs
-- of the day have played exactly these cards first (a hashed prefix per field), which is how a
-- search of the day's game by many runs shows (service.flags, "explored").  A practice run is
-- kept for its keep from its last play (a ranked run's TTL, its day's, was set as it opened).
-- KEYS[1] run hash, KEYS[2] the day's paths (hash)
-- ARGV[1] length of plays as read, ARGV[2] new plays, ARGV[3] new seat-0 cards,
-- ARGV[4] time of the play (ms), ARGV[5] '1' if the game is over, ARGV[6] finish time (ISO),
-- ARGV[7] '1' if the run is ranked, ARGV[8] the TTL of a practice run (seconds; '0': none to set)
local cur = redis.call('HGET', KEYS[1], 'plays')
if not cur or string.len(cur) ~= tonumber(ARGV[1]) then
  return 0
end
local times = redis.call('HGET', KEYS[1], 'times')
if times and times ~= '' then
  times = times .. ',' .. ARGV[4]
else
  times = ARGV[4]
end
redis.call('HSET', KEYS[1], 'plays', ARGV[2], 'cards', ARGV[3], 'times', times)
if ARGV[5] == '1' then
  redis.call('HSET', KEYS[1], 'status', 'finished', 'finished_at', ARGV[6])
end
if ARGV[8] ~= '0' then
  redis.call('EXPIRE', KEYS[1], ARGV[8])
end
if ARGV[7] == '1' then
  redis.call('HINCRBY', KEYS[2], string.sub(redis.sha1hex(ARGV[3]), 1, 16), 1)
end
return 1

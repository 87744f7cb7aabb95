-- The last step of a change of the boards (day_change.lua): its note taken off, if it is still
-- that one.  KEYS 1 pending changes; ARGV 1 pid, 2 the note.  Returns 1 if taken off.
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0

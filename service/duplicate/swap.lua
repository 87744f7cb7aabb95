-- A matchpoint board built beside the one readers see, put in its place with its state at once:
-- readers see the old board or the new, never a mix.
-- KEYS  1 the board built  2 the board  3 its state (hash)
-- ARGV  field, value, … of the state
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('RENAME', KEYS[1], KEYS[2])
else
  redis.call('DEL', KEYS[2])  -- nobody on it
end
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[3], unpack(ARGV))
return 1

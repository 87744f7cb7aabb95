-- Players' records of a day, each put at the end of the player's history in one bucket of
-- histories (service/ratings: 10 bytes a record, the day in its first two), unless the history
-- already ends with that day (a retry adds nothing).  The history is written whole (HSET): a
-- string is allocated to its size, where APPEND would keep room for as much again.
-- KEYS[1]: the bucket; ARGV[1]: the day (days since 2000-01-01); then pid, record, pid, record…
-- Returns how many records were added.
local day, added = tonumber(ARGV[1]), 0
for i = 2, #ARGV, 2 do
  local history = redis.call('HGET', KEYS[1], ARGV[i]) or ''
  local n = #history
  if not (n >= 10 and string.byte(history, n - 9) * 256 + string.byte(history, n - 8) == day) then
    redis.call('HSET', KEYS[1], ARGV[i], history .. ARGV[i + 1])
    added = added + 1
  end
end
return added

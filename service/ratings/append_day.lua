-- A player's record of a day put at the end of their history (service/ratings: 10 bytes, the day
-- in its first two), unless the history already ends with that day (a retry adds nothing).
-- Written whole with SET rather than APPEND: APPEND keeps room for as much again (Redis grows a
-- string by doubling it), up to twice the bytes a day; a string SET is allocated to its size.
-- KEYS[1]: the history; ARGV[1]: the record; ARGV[2]: its day (days since 2000-01-01).
local history = redis.call('GET', KEYS[1]) or ''
local n = #history
if n >= 10 and string.byte(history, n - 9) * 256 + string.byte(history, n - 8) == tonumber(ARGV[2]) then
  return 0
end
redis.call('SET', KEYS[1], history .. ARGV[1])
return 1

-- Take one counted score off the day's board and out of the week, month and all-time sums
-- (ops: a disqualification, a hold, a day's rebuild), atomically and once: a player not on the
-- day's board is left alone.  The inverse of record_score.lua.
--
-- KEYS  1 day counted set, 6 day entries (both written before issue 11 only: cleared)
--       2 day board  3 day names  4 day histogram  5 day sequence (unused)
--       7..10  week board, days played, sequence, names
--      11..14  month board, days played, sequence, names
--      15..18  all-time board, days played, sequence, names
--               (the period boards share the all-time names: Board.names_key)
-- ARGV  1 pid  2 score  3 margin  4 shift
-- Returns 1 removed now, 0 not counted.
local pid = ARGV[1]
local score, margin, shift = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])

if redis.call('ZREM', KEYS[2], pid) == 0 then
  return 0
end
redis.call('SREM', KEYS[1], pid)
redis.call('HDEL', KEYS[3], pid)
if redis.call('HINCRBY', KEYS[4], tostring(score), -1) <= 0 then
  redis.call('HDEL', KEYS[4], tostring(score))
end
redis.call('HDEL', KEYS[6], pid)

-- A period board: take the margin back out; an entry left with no day goes, and its name with it
-- unless the name is the all-time board's (shared), which goes only with the all-time entry.
local function take(first)
  local board, days, sequence, names = KEYS[first], KEYS[first + 1], KEYS[first + 2], KEYS[first + 3]
  local cur = redis.call('ZSCORE', board, pid)
  if not cur then return end
  if redis.call('HINCRBY', days, pid, -1) <= 0 then
    redis.call('ZREM', board, pid)
    redis.call('HDEL', days, pid)
    if names ~= KEYS[18] or first == 15 then
      redis.call('HDEL', names, pid)
    end
    return
  end
  local total = math.floor(tonumber(cur) / shift) - margin
  local tie = redis.call('INCR', sequence)
  if tie >= shift then tie = shift - 1 end
  redis.call('ZADD', board, string.format('%.0f', total * shift + (shift - 1 - tie)), pid)
end

take(7)
take(11)
take(15)
return 1

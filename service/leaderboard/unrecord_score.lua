-- Take one counted score off the day's board and out of the week, month and all-time sums
-- (ops: a disqualification, a hold, a day's rebuild), atomically and once: a player not on the
-- day's board is left alone.  The inverse of record_score.lua.
--
-- KEYS  1 day counted set, 6 day entries (both written before issue 11 only: cleared)
--       2 day board  3 day names  4 day histogram  5 day sequence (unused)
--       7..9   week board, sequence, names      10..12 month board, sequence, names
--      13..16  all-time board, days played, sequence, names
--               (the period boards share the all-time names: Board.names_key)
--      17..    the day boards of the week (ARGV[5] of them), then those of the month: the days
--               a player played in a week or a month are those whose board holds the player
-- ARGV  1 pid  2 score  3 margin  4 shift  5 how many day boards of the week
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

-- The days of a period (its day boards KEYS[from..to]) on which the player is still counted.
local function played(from, to)
  local n = 0
  for i = from, to do
    if redis.call('ZSCORE', KEYS[i], pid) then n = n + 1 end
  end
  return n
end

-- A period board: take the margin back out; an entry left with no day goes, and its name with it
-- unless the name is the all-time board's (shared), which goes only with the all-time entry.
-- ``days``: the all-time count, or nil for a week or a month, whose days left are ``left``.
local function take(board, sequence, names, days, left)
  local cur = redis.call('ZSCORE', board, pid)
  if not cur then return end
  if days then
    left = redis.call('HINCRBY', days, pid, -1)
  end
  if left <= 0 then
    redis.call('ZREM', board, pid)
    if days then
      redis.call('HDEL', days, pid)
    end
    if names ~= KEYS[16] or days then
      redis.call('HDEL', names, pid)
    end
    return
  end
  local total = math.floor(tonumber(cur) / shift) - margin
  local tie = redis.call('INCR', sequence)
  if tie >= shift then tie = shift - 1 end
  redis.call('ZADD', board, string.format('%.0f', total * shift + (shift - 1 - tie)), pid)
end

local week_days = tonumber(ARGV[5])
take(KEYS[7], KEYS[8], KEYS[9], nil, played(17, 16 + week_days))
take(KEYS[10], KEYS[11], KEYS[12], nil, played(17 + week_days, #KEYS))
take(KEYS[13], KEYS[15], KEYS[16], KEYS[14])
return 1

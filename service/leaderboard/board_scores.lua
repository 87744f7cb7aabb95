-- What the scripts that change a board's scores share (day_change.lua, all_time_change.lua,
-- period_change.lua), put in front of each as it is loaded (its "-- needs:" line: Redis 6 has no
-- library of functions).
--
-- Scores are composite so that equal totals list the earlier one first:
--   composite = value * shift + (shift - 1 - tie)    with 0 <= tie < shift,
-- where tie is the board's own sequence, taken when the entry last changed.  Every composite
-- stays below 2^53 (|value| < 2^20), exact in Redis's double.
local function composite(value, tie, shift)
  if tie >= shift then tie = shift - 1 end
  return string.format('%.0f', value * shift + (shift - 1 - tie))
end

-- pid's entry on a board of summed margins (cur: its composite, or false when it has none) moved
-- by delta, with the board's next sequence number as its tie.
local function add_margin(board, sequence, pid, cur, delta, shift)
  local total = delta
  if cur then total = total + math.floor(tonumber(cur) / shift) end
  redis.call('ZADD', board, composite(total, redis.call('INCR', sequence), shift), pid)
end

-- The tie a composite holds (its entry's number in the board's sequence): on a day's board, the
-- number of the change that recorded the game, which names it in the day's games and deal lists.
local function tie_of(composite, shift)
  local c = tonumber(composite)
  return shift - 1 - (c - math.floor(c / shift) * shift)
end

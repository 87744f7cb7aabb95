-- A change of a day's board (day_change.lua) carried to the week's, month's and all-time boards
-- of summed margins, atomically and once per change: the change's number in the day's sequence
-- is a bit of the day's bitmap of changes carried (a bit a change: 1.25 MB for ten million).
--
-- Period scores are composite so that equal totals list the earlier one first:
--   composite = value * shift + (shift - 1 - tie)    with 0 <= tie < shift,
-- where tie is the board's own sequence, taken when the entry last changed.  Every composite
-- stays below 2^53 (|value| < 2^20), exact in Redis's double.
--
-- KEYS   1..3 week board, sequence, names     4..6 month board, sequence, names
--        7..10 all-time board, days played, sequence, names
--               (the period boards share the all-time names; a week's or a month's days played
--               are its day boards that hold the player, not counted)
--       11 rebuild flag   12 submissions deferred while a rebuild runs   13 the day's changes carried
--       14 the day's counted set, 15 its entries (written before issue 11 only: cleared)
-- ARGV   1 '+' or '-'  2 pid  3 margin  4 nickname  5 the change's number  6 shift  7 '1' when the rebuild itself
--        records  8 submission id  9, 10 for '-': the days the player keeps in the week, the month
-- While a rebuild runs (the flag is set) a record by anyone else is turned away and its
-- submission noted in the deferred set, which the rebuild records before it ends.
-- Returns 1 carried now, 0 carried before, -1 deferred.
local sign, pid, margin, nickname = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local shift = tonumber(ARGV[6])

if sign == '+' and ARGV[7] ~= '1' and redis.call('EXISTS', KEYS[11]) == 1 then
  redis.call('SADD', KEYS[12], ARGV[8])
  return -1
end
if redis.call('SETBIT', KEYS[13], tonumber(ARGV[5]), 1) == 1 then
  return 0
end

local function composite(value, tie)
  if tie >= shift then tie = shift - 1 end
  return string.format('%.0f', value * shift + (shift - 1 - tie))
end

local function add(board, sequence, names, days)
  local total = margin
  local cur = redis.call('ZSCORE', board, pid)
  if cur then
    total = total + math.floor(tonumber(cur) / shift)
  end
  redis.call('ZADD', board, composite(total, redis.call('INCR', sequence)), pid)
  if days then
    redis.call('HINCRBY', days, pid, 1)
  end
  redis.call('HSET', names, pid, nickname)
end

-- Take the margin back out; an entry left with no day goes, and its name with it unless the name
-- is the all-time board's (shared), which goes only with the all-time entry.
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
    if names ~= KEYS[10] or days then
      redis.call('HDEL', names, pid)
    end
    return
  end
  local total = math.floor(tonumber(cur) / shift) - margin
  redis.call('ZADD', board, composite(total, redis.call('INCR', sequence)), pid)
end

if sign == '+' then
  add(KEYS[1], KEYS[2], KEYS[3])
  add(KEYS[4], KEYS[5], KEYS[6])
  add(KEYS[7], KEYS[9], KEYS[10], KEYS[8])
else
  redis.call('SREM', KEYS[14], pid)
  redis.call('HDEL', KEYS[15], pid)
  take(KEYS[1], KEYS[2], KEYS[3], nil, tonumber(ARGV[9]))
  take(KEYS[4], KEYS[5], KEYS[6], nil, tonumber(ARGV[10]))
  take(KEYS[7], KEYS[9], KEYS[10], KEYS[8])
end
return 1

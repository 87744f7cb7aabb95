-- Record one verified score on the day's board and on the week, month and all-time boards of
-- summed margins, atomically and once: a player already on the day's board is counted (a second
-- run is a no-op).
--
-- Board scores are composite so that equal scores list the earlier one first:
--   composite = value * shift + (shift - 1 - tie)    with 0 <= tie < shift,
-- where value is the score (day) or the summed margin (periods) and tie is the board's own
-- sequence, taken when the entry last changed: among equal totals, whoever reached the total
-- first is listed first.  Every composite stays below 2^53 (|value| < 2^20), so it is exact in
-- Redis's double.
--
-- KEYS  1 day counted set   2 day board   3 day names   4 day histogram   5 day sequence
--       6 day entries (pid -> submission id and sequence)
--         (1 and 6 are written no more since issue 11, only cleared by unrecord_score.lua:
--         the day's board says who is counted, the submission which game)
--       7..9   week board, sequence, names      10..12 month board, sequence, names
--      13..16  all-time board, days played, sequence, names
--               (the period boards share the all-time names: Board.names_key; a week's or a
--               month's days played are its day boards that hold the player, not counted)
--      17 rebuild flag       18 submissions deferred while a rebuild runs
-- ARGV  1 pid  2 nickname  3 score  4 margin  5 submission id  6 shift
--       7 '1' when the rebuild itself records
--
-- While a rebuild runs (the flag is set) any other caller is turned away and its submission
-- noted in the deferred set, which the rebuild records before it ends: a verification that
-- raced the wipe could otherwise be marked counted with its board entries wiped.
-- Returns 1 counted now, 0 counted before, -1 deferred.
local pid, nickname, sub = ARGV[1], ARGV[2], ARGV[5]
local score, margin, shift = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[6])

if ARGV[7] ~= '1' and redis.call('EXISTS', KEYS[17]) == 1 then
  redis.call('SADD', KEYS[18], sub)
  return -1
end

if redis.call('ZSCORE', KEYS[2], pid) then
  return 0
end

local function composite(value, tie)
  if tie >= shift then tie = shift - 1 end
  return string.format('%.0f', value * shift + (shift - 1 - tie))
end

local seq = redis.call('INCR', KEYS[5])
redis.call('ZADD', KEYS[2], composite(score, seq), pid)
redis.call('HSET', KEYS[3], pid, nickname)
redis.call('HINCRBY', KEYS[4], tostring(score), 1)

-- A period board: add the margin to the player's sum, keep the (latest) name; the all-time board
-- also counts the day (``days``).
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

add(KEYS[7], KEYS[8], KEYS[9])
add(KEYS[10], KEYS[11], KEYS[12])
add(KEYS[13], KEYS[15], KEYS[16], KEYS[14])
return 1

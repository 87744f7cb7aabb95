-- Record one verified score on the day's board and on the week, month and all-time boards of
-- summed margins, atomically and once: the per-day "counted" set makes a second run a no-op.
--
-- Board scores are composite so that equal scores list the earlier verification first:
--   composite = value * shift + (shift - 1 - tie)    with 0 <= tie < shift,
-- where value is the score (day) or the summed margin (periods) and tie grows with time.
-- Every composite stays below 2^53, so it is exact in Redis's double.
--
-- KEYS  1 day counted set     2 day board        3 day names      4 day histogram
--       5 day sequence        6 day entries (pid -> submission id and sequence)
--       7 week board          8 week days played 9 week sequence
--      10 month board        11 month days      12 month sequence
--      13 all-time board     14 all-time days   15 all-time names
--      16 rebuild flag       17 submissions deferred while a rebuild runs
-- ARGV  1 pid  2 nickname  3 score  4 margin  5 submission id
--       6 shift of day, week and month boards  7 shift of the all-time board
--       8 tie of the all-time board (the day's number)  9 '1' when the rebuild itself records
--
-- While a rebuild runs (the flag is set) any other caller is turned away and its submission
-- noted in the deferred set, which the rebuild records before it ends: a verification that
-- raced the wipe could otherwise be marked counted with its board entries wiped.
-- Returns {1, entry} counted now, {0, entry} counted before, {-1, ''} deferred.
local pid, nickname, sub = ARGV[1], ARGV[2], ARGV[5]
local score, margin = tonumber(ARGV[3]), tonumber(ARGV[4])
local shift, all_shift, all_tie = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])

if ARGV[9] ~= '1' and redis.call('EXISTS', KEYS[16]) == 1 then
  redis.call('SADD', KEYS[17], sub)
  return {-1, ''}
end

if redis.call('SADD', KEYS[1], pid) == 0 then
  return {0, redis.call('HGET', KEYS[6], pid) or ''}
end

local function composite(value, tie, sh)
  if tie >= sh then tie = sh - 1 end
  return string.format('%.0f', value * sh + (sh - 1 - tie))
end

local seq = redis.call('INCR', KEYS[5])
redis.call('ZADD', KEYS[2], composite(score, seq, shift), pid)
redis.call('HSET', KEYS[3], pid, nickname)
redis.call('HINCRBY', KEYS[4], tostring(score), 1)
redis.call('HSET', KEYS[6], pid, sub .. ' ' .. seq)

local function add(board, days, tie, sh)
  local total = margin
  local cur = redis.call('ZSCORE', board, pid)
  if cur then
    total = total + math.floor(tonumber(cur) / sh)
  end
  redis.call('ZADD', board, composite(total, tie, sh), pid)
  redis.call('HINCRBY', days, pid, 1)
end

add(KEYS[7], KEYS[8], redis.call('INCR', KEYS[9]), shift)
add(KEYS[10], KEYS[11], redis.call('INCR', KEYS[12]), shift)
add(KEYS[13], KEYS[14], all_tie, all_shift)
redis.call('HSET', KEYS[15], pid, nickname)
return {1, sub .. ' ' .. seq}

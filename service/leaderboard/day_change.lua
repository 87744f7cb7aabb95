-- A score put on a day's board or taken off it: the first of the steps that carry it to the
-- boards (each board has a slot of its own: all_time_change.lua writes the all-time board's,
-- period_change.lua the week's and the month's).  The change is noted as pending on the day's
-- board, with its number in the day's sequence, until those have carried it and
-- clear_pending.lua has taken the note off: a retry after a crash finds the note and carries the
-- same change again, which each of them does once per number.
--
-- KEYS  1 day board  2 day names  3 day histogram  4 day sequence  5 pending changes (pid -> JSON)
-- ARGV  1 '+' (record) or '-' (remove)  2 pid  3 score  4 nickname  5 shift
-- Returns {1, note}: changed now, the note to carry; {0, note}: a change of this player left
-- pending (carry it, then ask again); {0, false}: nothing to do (already on, or not on, the board).
-- needs: board_scores.lua
local sign, pid, score, shift = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[5])

local pending = redis.call('HGET', KEYS[5], pid)
if pending then
  return {0, pending}
end

local on = redis.call('ZSCORE', KEYS[1], pid)
local seq
if sign == '+' then
  if on then return {0, false} end
  seq = redis.call('INCR', KEYS[4])
  redis.call('ZADD', KEYS[1], composite(score, seq, shift), pid)
  redis.call('HSET', KEYS[2], pid, ARGV[4])
  redis.call('HINCRBY', KEYS[3], tostring(score), 1)
else
  if not on then return {0, false} end
  score = math.floor(tonumber(on) / shift)
  seq = redis.call('INCR', KEYS[4])
  redis.call('ZREM', KEYS[1], pid)
  redis.call('HDEL', KEYS[2], pid)
  if redis.call('HINCRBY', KEYS[3], tostring(score), -1) <= 0 then
    redis.call('HDEL', KEYS[3], tostring(score))
  end
end
local note = cjson.encode({sign, seq, score, ARGV[4]})
redis.call('HSET', KEYS[5], pid, note)
return {1, note}

-- A change of a day's board (day_change.lua) carried to the all-time board of summed margins,
-- atomically and once per change: the change's number in the day's sequence is a bit of the
-- day's bitmap of changes carried (a bit a change: 1.25 MB for ten million).  The second of a
-- change's steps; the week's and the month's boards, each in a slot of its own, come after it
-- (period_change.lua), with the count of wipes this returns.
-- needs: board_scores.lua
--
-- KEYS   1 all-time board  2 days played  3 sequence  4 names (the week's and month's boards show them too)
--        5 rebuild flag  6 submissions deferred while a rebuild runs  7 the day's changes carried
--        8 wipes of the boards
-- ARGV   1 '+' or '-'  2 pid  3 margin  4 nickname  5 the change's number  6 shift
--        7 '1' when the rebuild itself records  8 submission id
-- While a rebuild runs (the flag is set) a record by anyone else is turned away and its
-- submission noted in the deferred set, which the rebuild records before it ends.
-- Returns {1 carried now | 0 carried before | -1 deferred, the count of wipes}.
local sign, pid, margin, nickname = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local shift = tonumber(ARGV[6])
local wipes = redis.call('GET', KEYS[8]) or '0'

if sign == '+' and ARGV[7] ~= '1' and redis.call('EXISTS', KEYS[5]) == 1 then
  redis.call('SADD', KEYS[6], ARGV[8])
  return {-1, wipes}
end
if redis.call('SETBIT', KEYS[7], tonumber(ARGV[5]), 1) == 1 then
  return {0, wipes}
end

local cur = redis.call('ZSCORE', KEYS[1], pid)
if sign == '+' then
  add_margin(KEYS[1], KEYS[3], pid, cur, margin, shift)
  redis.call('HINCRBY', KEYS[2], pid, 1)
  redis.call('HSET', KEYS[4], pid, nickname)
else
  if cur then
    if redis.call('HINCRBY', KEYS[2], pid, -1) <= 0 then  -- no day left: the entry and its name go
      redis.call('ZREM', KEYS[1], pid)
      redis.call('HDEL', KEYS[2], pid)
      redis.call('HDEL', KEYS[4], pid)
    else
      add_margin(KEYS[1], KEYS[3], pid, cur, -margin, shift)
    end
  end
end
return {1, wipes}

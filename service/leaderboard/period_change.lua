-- A change of a day's board carried to its week's or its month's board, once per change: the
-- third of a change's steps, after all_time_change.lua, which gave the count of wipes.  Each week
-- and each month has a slot of its own ({boards:week:W}, {boards:month:M}): a closed period's
-- board is kept for good, and at ten million players a day one slot holding them all would grow
-- by gigabytes a month.
--
-- A wipe (the start of a rebuild) raises the count of wipes, sets each week's and month's slot's
-- count to it, then deletes the boards; a change whose all-time step ran just before the wipe may
-- still reach this step after that.  The slot keeps the highest count it was given: a change
-- carrying a lower one is dropped (the rebuild records its game again), and the first change
-- carrying a higher one clears the board that a lower one left (a slot the wipe did not know of
-- yet).  The bitmap of changes carried is named with the count, so a rebuild's changes, numbered
-- again from 1, start a new one.
--
-- KEYS   1 board  2 sequence  3 the day's changes carried (under this count)  4 the slot's count
-- ARGV   1 '+' or '-'  2 pid  3 margin  4 the change's number  5 shift
--        6 the count of wipes (all_time_change.lua's answer)  7 for '-': the days the player keeps in the period
-- Returns 1 carried now, 0 carried before (or begun before the last wipe: dropped).
-- needs: board_scores.lua
local sign, pid, margin, shift, wipes = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[5]), tonumber(ARGV[6])

local mine = redis.call('GET', KEYS[4])
if mine and tonumber(mine) > wipes then
  return 0
end
if not mine or tonumber(mine) < wipes then
  if mine then redis.call('DEL', KEYS[1]) end  -- written after a wipe by a change begun before it
  redis.call('SET', KEYS[4], wipes)
end
if redis.call('SETBIT', KEYS[3], tonumber(ARGV[4]), 1) == 1 then
  return 0
end

local cur = redis.call('ZSCORE', KEYS[1], pid)
if sign == '+' then
  add_margin(KEYS[1], KEYS[2], pid, cur, margin, shift)
elseif cur then
  if tonumber(ARGV[7]) <= 0 then
    redis.call('ZREM', KEYS[1], pid)
  else
    add_margin(KEYS[1], KEYS[2], pid, cur, -margin, shift)
  end
end
return 1

-- A score put on a day's board or taken off it: the first of the steps that carry it to the
-- boards (each board has a slot of its own: all_time_change.lua writes the all-time board's,
-- period_change.lua the week's and the month's).  The change is noted as pending on the day's
-- board, with its number in the day's sequence, until those have carried it and
-- clear_pending.lua has taken the note off: a retry after a crash finds the note and carries the
-- same change again, which each of them does once per number.
--
-- The field of each deal (the card points every counted game took on it) changes here too, in
-- the same step and the same slot, so it is counted exactly when the board is: a histogram
-- ("<deal>:<points>" -> games), the games in the order recorded per deal and points (a list of
-- numbers each: the traveller's order), and each game by its number, the one its entry on the
-- day's board holds as its tie ("<pid>|<sub>|51,22,33"; the submission's id without its day and
-- shard).  A number takes a few bytes in a list where a pid took 26.
--
-- KEYS  1 day board  2 day names  3 day histogram  4 day sequence  5 pending changes (pid -> JSON)
--       6 the deals' histogram  7 the games (number -> "<pid>|<sub>|<points>,…")
--       8… one list a deal played: deal k's for the points the game took on it
-- ARGV  1 '+' (record) or '-' (remove)  2 pid  3 score  4 nickname  5 shift
--       6 submission id  7 the game's points on each deal, "51,22,33" ('' for none: the field is
--       left as it is); for '-', what ARGV 7 must equal in the games' hash (the lists named)
-- Returns {1, note}: changed now, the note to carry; {0, note}: a change of this player left
-- pending (carry it, then ask again); {0, false}: nothing to do (already on, or not on, the board).
-- needs: board_scores.lua
local sign, pid, score, shift = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[5])
local deals = ARGV[7] or ''

local pending = redis.call('HGET', KEYS[5], pid)
if pending then
  return {0, pending}
end

-- the game (number ``n``)'s points on each deal into (or out of) the field
local function field(delta, n)
  local k = 0
  for points in string.gmatch(deals, '[^,]+') do
    local cell = k .. ':' .. points
    if delta > 0 then
      redis.call('HINCRBY', KEYS[6], cell, 1)
      redis.call('RPUSH', KEYS[8 + k], n)
    else
      if redis.call('HINCRBY', KEYS[6], cell, -1) <= 0 then
        redis.call('HDEL', KEYS[6], cell)
      end
      redis.call('LREM', KEYS[8 + k], 1, n)
    end
    k = k + 1
  end
end

local on = redis.call('ZSCORE', KEYS[1], pid)
local seq
if sign == '+' then
  if on then return {0, false} end
  seq = redis.call('INCR', KEYS[4])
  redis.call('ZADD', KEYS[1], composite(score, seq, shift), pid)
  redis.call('HSET', KEYS[2], pid, ARGV[4])
  redis.call('HINCRBY', KEYS[3], tostring(score), 1)
  if deals ~= '' then
    redis.call('HSET', KEYS[7], seq, pid .. '|' .. ARGV[6] .. '|' .. deals)
    field(1, seq)
  end
else
  if not on then return {0, false} end
  local n = tie_of(on, shift)
  local game = redis.call('HGET', KEYS[7], n)
  if game and string.sub(game, 1, #pid + 1) ~= pid .. '|' then
    game = false  -- not this player's: the game was recorded without its deals
  end
  if game and string.sub(game, -#deals - 1) ~= '|' .. deals then
    return redis.error_reply('GAME_CHANGED the games hash holds ' .. game .. ', not ' .. deals)
  end
  score = math.floor(tonumber(on) / shift)
  seq = redis.call('INCR', KEYS[4])
  redis.call('ZREM', KEYS[1], pid)
  redis.call('HDEL', KEYS[2], pid)
  if redis.call('HINCRBY', KEYS[3], tostring(score), -1) <= 0 then
    redis.call('HDEL', KEYS[3], tostring(score))
  end
  if game then
    redis.call('HDEL', KEYS[7], n)
    field(-1, n)
  end
end
local note = cjson.encode({sign, seq, score, ARGV[4]})
redis.call('HSET', KEYS[5], pid, note)
return {1, note}

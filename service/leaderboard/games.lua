-- The counted games of players on a day: each player's entry on the day's board holds, as its
-- tie, the number its game has in the day's games (day_change.lua).  Read only.
-- KEYS  1 the day's board  2 the day's games (number -> "<pid>|<sub>|<points>,…")
-- ARGV  1 shift  2… pids
-- Returns, for each pid, "<sub>|<points>,…" or false (not counted, or counted without its deals).
-- needs: board_scores.lua
local shift = tonumber(ARGV[1])
local out = {}
for i = 2, #ARGV do
  local pid, found = ARGV[i], false
  local on = redis.call('ZSCORE', KEYS[1], pid)
  if on then
    local game = redis.call('HGET', KEYS[2], tie_of(on, shift))
    if game and string.sub(game, 1, #pid + 1) == pid .. '|' then
      found = string.sub(game, #pid + 2)
    end
  end
  out[#out + 1] = found
end
return out

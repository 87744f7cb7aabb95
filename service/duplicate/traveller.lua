-- One page of a deal's traveller, read at one moment: the field of the deal, then the counted
-- games of the page, best card points first (equal points in the order they were recorded), with
-- their names and submissions.  Read only.
--
-- KEYS  1 the deals' histogram  2 the day's names  3 the games (number -> "<pid>|<sub>|<points>,…")
--       4… the deal's list of games (their numbers) for 0, 1, … 61 card points (KEYS[4 + p])
-- ARGV  1 the deal  2 offset  3 limit
-- Returns {counts (62 numbers, by card points), {pid, points, name, "<sub>|<points>,…"} …}.
local deal, offset, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local top = #KEYS - 4

local counts = {}
for p = 0, top do
  counts[p + 1] = tonumber(redis.call('HGET', KEYS[1], deal .. ':' .. p) or '0')
end

local rows = {}
local before = 0  -- games ranked above the bucket
for p = top, 0, -1 do
  local c = counts[p + 1]
  if c > 0 and #rows < limit then
    local first = math.max(offset - before, 0)
    if first < c then
      local games = redis.call('LRANGE', KEYS[4 + p], first, first + limit - #rows - 1)
      for _, n in ipairs(games) do
        local game = redis.call('HGET', KEYS[3], n) or '|'
        local bar = string.find(game, '|', 1, true)
        local pid = string.sub(game, 1, bar - 1)
        rows[#rows + 1] = {pid, p, redis.call('HGET', KEYS[2], pid) or '', string.sub(game, bar + 1)}
      end
    end
  end
  before = before + c
end
return {counts, rows}

-- Some players' entries on one board with their public rank, in one call whatever their number
-- (a league's members: service.leagues): the rank shown is shared by equal values, 1 + the
-- entries with a strictly higher value, as a board page shows it.  Reads only.  The answer is
-- one string, not a reply per player: a client parses 1,000 replies ten times slower than it
-- splits one string of them.
-- KEYS 1 board;  ARGV 1 shift  2… pids
-- Returns {the board's size, "composite rank" for each pid in order, "" for one not on the
-- board, joined by ","}.
local shift = tonumber(ARGV[1])
local found = {}
for i = 2, #ARGV do
  local composite = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if composite then
    local above = string.format('%.0f', (math.floor(tonumber(composite) / shift) + 1) * shift)
    found[i - 1] = composite .. ' ' .. (redis.call('ZCOUNT', KEYS[1], above, '+inf') + 1)
  else
    found[i - 1] = ''
  end
end
return {redis.call('ZCARD', KEYS[1]), table.concat(found, ',')}

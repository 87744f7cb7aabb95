-- Some players' entries on one board with their public rank, in one call whatever their number
-- (a league's members: service.leagues): the rank shown is shared by equal values, 1 + the
-- entries with a strictly higher value, as a board page shows it.  Reads only.
-- KEYS 1 board;  ARGV 1 shift  2… pids
-- Returns {the board's size, then for each pid its composite and rank, or false and false}.
local shift = tonumber(ARGV[1])
local out = {redis.call('ZCARD', KEYS[1])}
for i = 2, #ARGV do
  local composite = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if composite then
    local above = string.format('%.0f', (math.floor(tonumber(composite) / shift) + 1) * shift)
    out[#out + 1] = composite
    out[#out + 1] = redis.call('ZCOUNT', KEYS[1], above, '+inf') + 1
  else
    out[#out + 1] = false
    out[#out + 1] = false
  end
end
return out

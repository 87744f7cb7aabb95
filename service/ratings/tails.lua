-- The last ARGV[1] bytes of each named player's history in one bucket of histories
-- (service/ratings), '' for a player with none; and each history's length.
-- KEYS[1]: the bucket; ARGV[1]: the bytes wanted; ARGV[2…]: the pids.
local want, out = tonumber(ARGV[1]), {}
for i = 2, #ARGV do
  local history = redis.call('HGET', KEYS[1], ARGV[i]) or ''
  out[#out + 1] = string.sub(history, -want)
  out[#out + 1] = #history
end
return out

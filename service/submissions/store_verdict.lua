-- Store a verification's verdict in its submission (the caller then takes it out of the pending
-- index, which lives in another cluster slot).
-- ``verified_at`` keeps the first verdict's time (it orders equal scores on the boards: a
-- re-verification must not move a player behind later ones); ``checked_at``, the latest verdict's
-- time, is stored only once it differs (a first verdict's is its verified_at).  Empty fields go
-- (a verified game has no rejection reason, a game without a flag no flags).
-- KEYS[1] submission hash
-- ARGV[1] submission id (unused here), ARGV[2] time of the verdict, ARGV[3] how many fields to remove,
-- ARGV[4 .. 3+n] the fields to remove, then field, value pairs to set
if redis.call('HSETNX', KEYS[1], 'verified_at', ARGV[2]) == 0 then
  redis.call('HSET', KEYS[1], 'checked_at', ARGV[2])
end
local n = tonumber(ARGV[3])
if n > 0 then
  redis.call('HDEL', KEYS[1], unpack(ARGV, 4, 3 + n))
end
if #ARGV > 3 + n then
  redis.call('HSET', KEYS[1], unpack(ARGV, 4 + n))
end
return 1

-- Store a verification's verdict in its submission, and take it out of the pending index.
-- ``verified_at`` keeps the first verdict's time (it orders equal scores on the boards: a
-- re-verification must not move a player behind later ones); ``checked_at``, the latest verdict's
-- time, is stored only once it differs (a first verdict's is its verified_at).  Empty fields go
-- (a verified game has no rejection reason), and so do an old-form submission's derived ones.
-- KEYS[1] submission hash, KEYS[2] pending index (zset)
-- ARGV[1] submission id, ARGV[2] time of the verdict, ARGV[3] how many fields to remove,
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
redis.call('ZREM', KEYS[2], ARGV[1])
return 1

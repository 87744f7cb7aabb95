-- A finished game's result on its duel, once per player: the challenger's as the duel is made,
-- a friend's when their run of it ends (or is first read finished).  Nothing once the duel has
-- expired (HSET would make a new hash without its TTL).
-- KEYS 1 the duel;  ARGV 1 pid  2 the result (JSON).  Returns 1 if recorded now.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
return redis.call('HSETNX', KEYS[1], 'result:' .. ARGV[1], ARGV[2])

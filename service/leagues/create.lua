-- A new league with its creator as owner and first member, kept IDLE seconds.
-- KEYS 1 league (hash)  2 members (pid -> when joined, ms)  3 members' names (pid -> nickname, ''
--      for none)
-- ARGV 1 name  2 owner's pid  3 invite secret  4 created at (ISO)  5 now (ms)  6 owner's nickname
--      7 the salt of its members' handles  8 how long it is kept idle (s)
-- Returns 1 created, 0 the id is taken (drawn again).
-- needs: keep.lua
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'owner', ARGV[2], 'invite', ARGV[3], 'created_at', ARGV[4],
           'salt', ARGV[7])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[6])
keep(KEYS, ARGV[8])
return 1

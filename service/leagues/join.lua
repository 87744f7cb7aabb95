-- A player joins a league with its invite secret; the same player again is answered as a member.
-- A wrong or old secret, a league that is gone and a member the owner removed (under this
-- invite) are one answer: the league is not there for them.  A join keeps the league IDLE more.
-- KEYS 1 league  2 members  3 members' names  4 removed under the current invite (set of pids)
-- ARGV 1 invite secret  2 pid  3 nickname ('' for none)  4 now (ms)  5 the most members a league
--      may have  6 how long it is kept idle (s)
-- Returns 'joined', 'member' (already; its name as it was) 'full' or 'unknown'.
-- needs: keep.lua
local secret = redis.call('HGET', KEYS[1], 'invite')
if not secret or secret ~= ARGV[1] or redis.call('SISMEMBER', KEYS[4], ARGV[2]) == 1 then
  return 'unknown'
end
if redis.call('ZSCORE', KEYS[2], ARGV[2]) then
  return 'member'
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then
  return 'full'
end
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
keep(KEYS, ARGV[6])
return 'joined'

-- Claim a nickname's keys (nickname.keys: its case-folded skeletons) for a player, all or none,
-- as the player's one pending claim: a name is held for good only once a game submitted under it
-- is verified (confirm_nickname.lua).  A name whose keys meet another player's, held or pending,
-- is taken, whichever key it is.  A player's new claim replaces their pending one, and a claim
-- pending since before ARGV[3] (a day: its game was never verified) is released first.
--
-- KEYS  1 the owners hash (claim key -> pid: held by a verified game)
--       2 the pending claims (claim key -> pid)
--       3 each player's pending claim (pid -> its claim keys, space-separated)
--       4 when each pending claim was made (zset: pid -> ms)
-- ARGV  1 pid  2 now (ms)  3 claims made before this (ms) are released  4.. the name's claim keys
-- Returns the other holder's pid when another player holds or claims one of the keys (nothing
-- written), else how many keys are now pending for this player (0: the name is theirs, held).
-- needs: release_claim.lua
local pid = ARGV[1]
for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', '(' .. ARGV[3], 'LIMIT', 0, 100)) do
  release(KEYS, old)
end
local missing = {}
for i = 4, #ARGV do
  local key = ARGV[i]
  local holder = redis.call('HGET', KEYS[1], key)
  if holder and holder ~= pid then
    return holder
  end
  local claimant = redis.call('HGET', KEYS[2], key)
  if claimant and claimant ~= pid then
    return claimant
  end
  if holder ~= pid then
    missing[#missing + 1] = key
  end
end
release(KEYS, pid)
if #missing == 0 then
  return 0
end
for _, key in ipairs(missing) do
  redis.call('HSET', KEYS[2], key, pid)
end
redis.call('HSET', KEYS[3], pid, table.concat(missing, ' '))
redis.call('ZADD', KEYS[4], ARGV[2], pid)
return #missing

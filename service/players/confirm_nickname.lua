-- The verdict on a game submitted under a nickname: a valid game makes its player hold the name
-- for good (unless another player came to hold it meanwhile: its claim had lapsed); a game not
-- valid releases the claim.  Either way the name's keys are no longer pending for this player.
-- KEYS as claim_nickname.lua
-- ARGV  1 pid  2 'hold' or 'release'  3.. the name's claim keys
-- Returns how many keys the player holds now that they did not before.
-- needs: release_claim.lua
local pid, held = ARGV[1], 0
local names = {}
for i = 3, #ARGV do
  local key = ARGV[i]
  names[key] = true
  if ARGV[2] == 'hold' then
    held = held + redis.call('HSETNX', KEYS[1], key, pid)
  end
end
local pending = redis.call('HGET', KEYS[3], pid)
if pending then
  local left = {}
  for key in string.gmatch(pending, '%S+') do
    if not names[key] then
      left[#left + 1] = key
    end
  end
  if #left == 0 then
    release(KEYS, pid)
  else
    for key in pairs(names) do
      if redis.call('HGET', KEYS[2], key) == pid then
        redis.call('HDEL', KEYS[2], key)
      end
    end
    redis.call('HSET', KEYS[3], pid, table.concat(left, ' '))
  end
end
return held

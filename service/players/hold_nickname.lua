-- Hold a nickname's keys (nickname.keys: its case-folded skeletons) for a player at once, all or
-- none (Players.rekey: names players were seen to hold): a name whose keys meet another holder's
-- is refused, whichever key it is.
--
-- KEYS  1 the owners hash (claim key -> pid)
-- ARGV  1 pid  2.. the name's claim keys
-- Returns the holder's pid when another player holds one of the keys (nothing written), else
-- how many keys were new to this player (0: the name was already theirs).
local pid = ARGV[1]
for i = 2, #ARGV do
  local holder = redis.call('HGET', KEYS[1], ARGV[i])
  if holder and holder ~= pid then
    return holder
  end
end
local added = 0
for i = 2, #ARGV do
  added = added + redis.call('HSETNX', KEYS[1], ARGV[i], pid)
end
return added

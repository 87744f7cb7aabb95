-- What only a league's owner may do: rename it, make a new invite (the old one stops working,
-- and members removed under it may join with the new one), delete it.
-- KEYS 1 league  2 members  3 members' names  4 removed under the current invite
-- ARGV 1 the caller's pid  2 'rename', 'invite' or 'delete'  3 the new name or secret
--      4 how long the league is kept idle (s)
-- Returns {'unknown'} (the caller is no member), {'not_owner'}, {'done'}, or for a deletion
-- {'deleted', every member's pid…} (their lists of leagues are the caller's to update).
-- needs: keep.lua
local caller, op = ARGV[1], ARGV[2]
if not redis.call('ZSCORE', KEYS[2], caller) then
  return {'unknown'}
end
if redis.call('HGET', KEYS[1], 'owner') ~= caller then
  return {'not_owner'}
end
if op == 'rename' then
  redis.call('HSET', KEYS[1], 'name', ARGV[3])
elseif op == 'invite' then
  redis.call('HSET', KEYS[1], 'invite', ARGV[3])
  redis.call('DEL', KEYS[4])
elseif op == 'delete' then
  local members = redis.call('ZRANGE', KEYS[2], 0, -1)
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
  return {'deleted', unpack(members)}
else
  return redis.error_reply('unknown operation ' .. op)
end
keep(KEYS, ARGV[4])
return {'done'}

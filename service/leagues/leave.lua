-- A member leaves a league (ARGV 1 = ARGV 2), or its owner removes another member.  An owner who
-- leaves hands the league to the member who joined first after them; the last member to leave
-- deletes it.  A removed member cannot join again with the same invite (manage.lua's new invite
-- lifts that).
-- KEYS 1 league  2 members  3 members' names  4 removed under the current invite
-- ARGV 1 the caller's pid  2 the member's pid  3 how long the league is kept idle (s)
-- Returns {'unknown'} (the caller is no member), {'not_owner'}, {'no_member'}, {'removed'},
-- {'left', the new owner's pid or ''} or {'deleted'}.
-- needs: keep.lua
local caller, member = ARGV[1], ARGV[2]
if not redis.call('ZSCORE', KEYS[2], caller) then
  return {'unknown'}
end
local owner = redis.call('HGET', KEYS[1], 'owner')
if caller ~= member then
  if owner ~= caller then
    return {'not_owner'}
  end
  if not redis.call('ZSCORE', KEYS[2], member) then
    return {'no_member'}
  end
  redis.call('ZREM', KEYS[2], member)
  redis.call('HDEL', KEYS[3], member)
  redis.call('SADD', KEYS[4], member)
  keep(KEYS, ARGV[3])
  return {'removed'}
end
redis.call('ZREM', KEYS[2], caller)
redis.call('HDEL', KEYS[3], caller)
if redis.call('ZCARD', KEYS[2]) == 0 then
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
  return {'deleted'}
end
if owner == caller then
  local heir = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  redis.call('HSET', KEYS[1], 'owner', heir)
  keep(KEYS, ARGV[3])
  return {'left', heir}
end
keep(KEYS, ARGV[3])
return {'left', ''}

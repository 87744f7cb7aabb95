-- A member's name in a league, after the player came to hold a new nickname (a verified game);
-- nothing for a player who is no longer a member (left, removed, the league deleted).
-- KEYS 1 members  2 members' names;  ARGV 1 pid  2 nickname.  Returns 1 if written.
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1

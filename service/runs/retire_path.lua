-- Take a verified game's path out of the day's tree of paths, once per submission: each prefix's
-- count goes down by one, and a count left at 0 goes, so the tree holds only runs not submitted.
-- Nothing when the tree is gone (the day's keep is over): a re-verification then leaves no key.
-- KEYS[1] the day's paths (hash), KEYS[2] submissions already retired (set)
-- ARGV[1] submission id, ARGV[2] TTL of the set (seconds), ARGV[3..] the fields of the prefixes
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then
  return 0
end
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[2]))
for i = 3, #ARGV do
  if redis.call('HINCRBY', KEYS[1], ARGV[i], -1) <= 0 then
    redis.call('HDEL', KEYS[1], ARGV[i])
  end
end
return 1

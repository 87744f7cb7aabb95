-- Take a verified game's path out of the day's tree of paths, once (its run keeps the mark): each
-- prefix's count goes down by one, and a count left at 0 goes, so the tree holds only runs not
-- submitted.  Nothing when the tree or the run is gone (the day's keep is over): a
-- re-verification then leaves no key.
-- KEYS[1] the day's paths (hash), KEYS[2] the run (hash, same slot)
-- ARGV[1..] the fields of the prefixes
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('EXISTS', KEYS[2]) == 0 then
  return 0
end
if redis.call('HSETNX', KEYS[2], 'retired', '1') == 0 then
  return 0
end
for i = 1, #ARGV do
  if redis.call('HINCRBY', KEYS[1], ARGV[i], -1) <= 0 then
    redis.call('HDEL', KEYS[1], ARGV[i])
  end
end
return 1

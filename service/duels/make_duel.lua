-- A new duel: its fields, kept KEEP_SECONDS (the link's life).
-- KEYS 1 the duel;  ARGV 1 seconds kept  2… field, value pairs.  Returns 1.
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1

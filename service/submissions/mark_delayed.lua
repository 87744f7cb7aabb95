-- Mark a submission delayed, only while it has no verdict: a verification crashed for good, or
-- its job is gone.  A verdict stored meanwhile (or a re-verification of a verified game that
-- crashed) is never overwritten.
-- KEYS[1] submission hash; ARGV[1] time (µs since the epoch), ARGV[2] why (for ops)
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'queued' and status ~= 'delayed' then
  return 0
end
redis.call('HSET', KEYS[1], 'status', 'delayed', 'delayed_at', ARGV[1], 'delay_reason', ARGV[2])
return 1

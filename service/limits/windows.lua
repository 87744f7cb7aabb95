-- The moving windows of one rate limit for one subject (service.limits): check them, count a hit,
-- take one (count it only if every window has room: check and count at once), or take back a hit
-- counted by a request that then stored nothing.  A window of E ms is a hash
-- of buckets of E/60 ms (field: the bucket's number, now // size; value: its hits); the last 60
-- buckets are the window.  Its keys share one hash tag: one cluster slot.
-- KEYS the windows; ARGV[1] 'check', 'count', 'take' or 'uncount'; ARGV[2] now (ms);
-- ARGV[3..] amount and length (ms) of each window.
-- check, take: {0, 0} when every window has room for one more hit (take has counted it), else
-- {i, ms until window i has} (take has counted nothing); count, uncount: {0, 0}.
local mode, now = ARGV[1], tonumber(ARGV[2])

local function size_of(expiry)
  return math.max(1, math.floor(expiry / 60))
end

-- 0 if the window has room for one more hit at ``now``, else the ms until it has.
local function wait(key, amount, expiry)
  local size = size_of(expiry)
  local cur = math.floor(now / size)
  local flat = redis.call('HGETALL', key)
  local buckets, total = {}, 0
  for i = 1, #flat, 2 do
    local n = tonumber(flat[i])
    if n > cur - 60 then
      local hits = tonumber(flat[i + 1])
      total = total + hits
      buckets[#buckets + 1] = {n, hits}
    end
  end
  if total < amount then
    return 0
  end
  -- room comes back when enough of the oldest buckets have left the window
  table.sort(buckets, function(a, b) return a[1] < b[1] end)
  local excess = total - amount + 1
  for _, b in ipairs(buckets) do
    excess = excess - b[2]
    if excess <= 0 then
      return math.max(1, (b[1] + 60) * size - now)
    end
  end
  return 1
end

if mode == 'check' or mode == 'take' then
  for i = 1, #KEYS do
    local ms = wait(KEYS[i], tonumber(ARGV[2 * i + 1]), tonumber(ARGV[2 * i + 2]))
    if ms > 0 then
      return {i, ms}
    end
  end
  if mode == 'check' then
    return {0, 0}
  end
  mode = 'count'
end

for i = 1, #KEYS do
  local key, expiry = KEYS[i], tonumber(ARGV[2 * i + 2])
  local bucket = string.format('%d', math.floor(now / size_of(expiry)))
  if mode == 'count' then
    redis.call('HINCRBY', key, bucket, 1)
    if redis.call('HLEN', key) > 60 then  -- drop the buckets that left the window
      local cur = tonumber(bucket)
      for _, field in ipairs(redis.call('HKEYS', key)) do
        if tonumber(field) <= cur - 60 then
          redis.call('HDEL', key, field)
        end
      end
    end
    redis.call('PEXPIRE', key, expiry)
  elseif mode == 'uncount' then
    if tonumber(redis.call('HGET', key, bucket) or '0') > 0 and redis.call('HINCRBY', key, bucket, -1) <= 0 then
      redis.call('HDEL', key, bucket)
    end
  else
    return redis.error_reply('windows.lua: unknown mode ' .. tostring(mode))
  end
end
return {0, 0}

-- The moving windows of one rate limit for one subject (service.limits): check them, count a hit,
-- take one (count it only if every window has room: check and count at once), or take back a hit
-- counted by a request that then stored nothing.  A window of E ms is a hash
-- of buckets of E/60 ms (field: the bucket's number, now // size; value: its hits); the last 60
-- buckets are the window.  Its keys share one hash tag: one cluster slot.
-- KEYS the windows; ARGV[1] 'check', 'count', 'take' or 'uncount'; ARGV[2] now (ms);
-- ARGV[3..] amount and length (ms) of each window; for count, then how many hits (default 1: a
-- search's milliseconds of CPU are counted as that many hits).
-- check, take: {0, 0, ...} when every window has room for one more hit (take has counted it), else
-- {i, ms until window i has, ...} (take has counted nothing); then, for each window, its hits
-- before this request and the ms until its oldest hit leaves it (0: none), which the RateLimit
-- headers are made of; count, uncount: {0, 0}.
local mode, now = ARGV[1], tonumber(ARGV[2])
local weight = tonumber(ARGV[2 * #KEYS + 3] or '1')

local function size_of(expiry)
  return math.max(1, math.floor(expiry / 60))
end

-- 0 if the window has room for one more hit at ``now``, else the ms until it has; then its hits
-- and the ms until its oldest hit leaves it.
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
  table.sort(buckets, function(a, b) return a[1] < b[1] end)
  local oldest = 0
  if #buckets > 0 then
    oldest = math.max(1, (buckets[1][1] + 60) * size - now)
  end
  if total < amount then
    return 0, total, oldest
  end
  -- room comes back when enough of the oldest buckets have left the window
  local excess = total - amount + 1
  for _, b in ipairs(buckets) do
    excess = excess - b[2]
    if excess <= 0 then
      return math.max(1, (b[1] + 60) * size - now), total, oldest
    end
  end
  return 1, total, oldest
end

-- One hit more (count) or less (uncount) in window i, in the bucket of ``now``.
local function change(i, how)
  local key, expiry = KEYS[i], tonumber(ARGV[2 * i + 2])
  local bucket = string.format('%d', math.floor(now / size_of(expiry)))
  if how == 'count' then
    redis.call('HINCRBY', key, bucket, weight)
    if redis.call('HLEN', key) > 60 then  -- drop the buckets that left the window
      local cur = tonumber(bucket)
      for _, field in ipairs(redis.call('HKEYS', key)) do
        if tonumber(field) <= cur - 60 then
          redis.call('HDEL', key, field)
        end
      end
    end
    redis.call('PEXPIRE', key, expiry)
  else
    if tonumber(redis.call('HGET', key, bucket) or '0') > 0 and redis.call('HINCRBY', key, bucket, -1) <= 0 then
      redis.call('HDEL', key, bucket)
    end
  end
end

if mode == 'check' or mode == 'take' then
  local out = {0, 0}
  for i = 1, #KEYS do
    local ms, total, oldest = wait(KEYS[i], tonumber(ARGV[2 * i + 1]), tonumber(ARGV[2 * i + 2]))
    if ms > 0 and out[1] == 0 then
      out[1], out[2] = i, ms
    end
    out[#out + 1] = total
    out[#out + 1] = oldest
  end
  if mode == 'take' and out[1] == 0 then
    for i = 1, #KEYS do
      change(i, 'count')
    end
  end
  return out
end

if mode ~= 'count' and mode ~= 'uncount' then
  return redis.error_reply('windows.lua: unknown mode ' .. tostring(mode))
end
for i = 1, #KEYS do
  change(i, mode)
end
return {0, 0}

-- Moving windows of hits (service.limits), shared by the scripts that check or count them: put
-- before a script by service.store.load_script(include=...).  A window of E ms is a hash of
-- buckets of E/60 ms (field: the bucket's number, now // size; value: its hits); the last 60
-- buckets are the window.  Window i of a script is KEYS[first + i - 1] with ARGV[a], ARGV[a + 1]
-- = its amount and E, a = arg + 2 * (i - 1).

local function bucket_size(expiry)
  return math.max(1, math.floor(expiry / 60))
end

-- 0 if the window has room for one more hit at ``now``, else the ms until it has.
local function window_wait(key, amount, expiry, now)
  local size = bucket_size(expiry)
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

-- One hit at ``now``; buckets that left the window are dropped, the hash expires with the window.
local function window_hit(key, expiry, now)
  local size = bucket_size(expiry)
  local cur = math.floor(now / size)
  redis.call('HINCRBY', key, string.format('%d', cur), 1)
  if redis.call('HLEN', key) > 60 then
    for _, field in ipairs(redis.call('HKEYS', key)) do
      if tonumber(field) <= cur - 60 then
        redis.call('HDEL', key, field)
      end
    end
  end
  redis.call('PEXPIRE', key, expiry)
end

-- {i, ms} for the first of ``count`` windows with no room (KEYS from ``first``, ARGV from ``arg``),
-- or nil when every one has room.
local function windows_full(first, arg, count, now)
  for i = 1, count do
    local a = arg + 2 * (i - 1)
    local wait = window_wait(KEYS[first + i - 1], tonumber(ARGV[a]), tonumber(ARGV[a + 1]), now)
    if wait > 0 then
      return {i, wait}
    end
  end
  return nil
end

local function windows_hit(first, arg, count, now)
  for i = 1, count do
    window_hit(KEYS[first + i - 1], tonumber(ARGV[arg + 2 * (i - 1) + 1]), now)
  end
end

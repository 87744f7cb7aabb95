-- release(KEYS, pid): drop pid's pending nickname claim (its keys still pending for it), with
-- KEYS as claim_nickname.lua names them.  Included by the scripts that name it on a needs line.
local function release(keys, pid)
  local pending = redis.call('HGET', keys[3], pid)
  if pending then
    for key in string.gmatch(pending, '%S+') do
      if redis.call('HGET', keys[2], key) == pid then
        redis.call('HDEL', keys[2], key)
      end
    end
    redis.call('HDEL', keys[3], pid)
  end
  redis.call('ZREM', keys[4], pid)
end

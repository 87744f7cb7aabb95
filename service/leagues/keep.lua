-- keep(keys, seconds): a league's keys (those that exist) kept ``seconds`` more: a league no member
-- has opened or changed for that long is gone (Leagues.IDLE_SECONDS).  Included by the scripts
-- that name it on a needs line; the last ARGV of each is the lifetime.
local function keep(keys, seconds)
  for i = 1, #keys do
    redis.call('EXPIRE', keys[i], seconds)
  end
end

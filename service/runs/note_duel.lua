-- The duel made of a finished run, noted once on the run (nothing on a run that has expired:
-- HSETNX would make a new hash without its TTL).
-- KEYS 1 run hash;  ARGV 1 the duel's code.
-- Returns the run's duel: this one if noted now, the one noted before otherwise; false if the run is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return false
end
redis.call('HSETNX', KEYS[1], 'duel', ARGV[1])
return redis.call('HGET', KEYS[1], 'duel')

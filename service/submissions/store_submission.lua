-- Store a submission of a finished ranked run, once: the submission, the run's mark of it and
-- the day's list of submissions, atomically (one day's keys: one cluster slot).  The caller read
-- and checked the run before (and claimed the nickname); this checks again what may have moved.
-- KEYS[1] run hash, KEYS[2] submission hash, KEYS[3] the day's submissions (list)
-- ARGV[1] player id, ARGV[2] submission id without its day and shard (the keys name them),
-- ARGV[3..] field, value pairs of the submission
-- Returns {1, id} stored now, {2, id} the run's submission stored before, {0, why} refused.
local run = redis.call('HMGET', KEYS[1], 'pid', 'submission', 'kind', 'status')
if not run[1] or run[1] ~= ARGV[1] then
  return {0, 'run_not_found'}
end
if run[2] and run[2] ~= '' then
  return {2, run[2]}
end
if run[3] ~= 'ranked' then
  return {0, 'practice_run'}
end
if run[4] ~= 'finished' then
  return {0, 'run_not_finished'}
end
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
redis.call('HSET', KEYS[1], 'submission', ARGV[2])
redis.call('RPUSH', KEYS[3], ARGV[2])
return {1, ARGV[2]}

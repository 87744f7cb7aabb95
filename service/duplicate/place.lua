-- A verified game put on its day's matchpoint board at once, by its own matchpoints against the
-- field so far, among the last build's entries, until the next build computes them all again.
-- Only a game on the day's board (counted, not taken off since) is placed; its tie-breaker is
-- the one it has there, as a build gives it.
-- KEYS[1] the day's board, KEYS[2] its matchpoint board, KEYS[3] the matchpoint board's state
-- ARGV[1] the player, ARGV[2] the game's matchpoints × SCALE (an integer), ARGV[3] SHIFT
local counted = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not counted then
  return 0
end
local shift = tonumber(ARGV[3])
local tie = math.fmod(tonumber(counted), shift)
local composite = string.format('%.0f', tonumber(ARGV[2]) * shift + tie)
if redis.call('ZADD', KEYS[2], composite, ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[3], 'games', 1)
end
redis.call('HINCRBY', KEYS[3], 'placed', 1)
return 1

-- Count one hit in every window of a request's limits (it succeeded).  After windows.lua.
-- KEYS the windows; ARGV[1] now (ms), then amount and length (ms) of each window.
windows_hit(1, 2, #KEYS, tonumber(ARGV[1]))
return 1

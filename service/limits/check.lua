-- Is there room in every window of a request's limits (read only)?  After windows.lua.
-- KEYS the windows; ARGV[1] now (ms), then amount and length (ms) of each window.
-- {0, 0} when there is, else {i, ms until window i has room}.
return windows_full(1, 2, #KEYS, tonumber(ARGV[1])) or {0, 0}

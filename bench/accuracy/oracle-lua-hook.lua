-- bench/accuracy/oracle-lua-hook.lua: the recording half of the Lua
-- oracle (oracle-lua.py runs a project's tests with LUA_INIT naming this
-- file, so every Lua process of the run, the ones a test starts too,
-- loads it first).
--
-- A call hook (debug.sethook, "call" events) sees every call Lua makes
-- while the tests run: the caller is the function at level 3, and its
-- current line is the line of the call; the callee is the function at
-- level 2, a Lua function named by its chunk and the line its
-- definition starts on, or a C function.  The name the call was written
-- with, and how (global, local, method, field, upvalue), is what Lua
-- itself says of the calling instruction.  Only calls made by Lua code
-- are recorded: a function called by a C function (pcall, table.sort,
-- require running a module) has no call written in Lua; a tail call is
-- left out too, its caller's frame being gone.
--
-- Each distinct (caller chunk, line, name, how, callee, caller's
-- definition line) is written once, when the process ends (at lua_close
-- or os.exit), as a TSV line to a file of its own in
-- $ORACLE_LUA_OUT:
--
--   caller-chunk  line  name  namewhat  callee-what  callee-chunk
--   callee-linedefined  caller-linedefined  count
--
-- Hooks belong to one coroutine: coroutine.create and coroutine.wrap are
-- wrapped so that each new coroutine gets the hook as well.

local out_dir = os.getenv("ORACLE_LUA_OUT")
if not out_dir or out_dir == "" then
	return
end

local getinfo, sethook = debug.getinfo, debug.sethook
local seen, order = {}, {}
local concat = table.concat

local function hook(event)
	if event ~= "call" then
		return
	end
	local caller = getinfo(3, "Sl")
	if not caller or caller.what == "C" or caller.currentline < 1 then
		return
	end
	local callee = getinfo(2, "Sn")
	local nw = callee.namewhat or ""
	if nw == "metamethod" or nw == "for iterator" or nw == "hook" then
		return
	end
	local key = concat({ caller.source, caller.currentline, callee.name or "?", nw, callee.what,
		callee.what == "C" and "=[C]" or callee.source, callee.linedefined, caller.linedefined }, "\t")
	local n = seen[key]
	if n then
		seen[key] = n + 1
	else
		seen[key] = 1
		order[#order + 1] = key
	end
end

local flushed = false
local function flush()
	if flushed then
		return
	end
	flushed = true
	sethook()
	local name = os.tmpname()
	os.remove(name)
	local f = io.open(out_dir .. "/" .. name:match("[^/]+$") .. ".calls", "w")
	if not f then
		return
	end
	for _, key in ipairs(order) do
		f:write(key, "\t", seen[key], "\n")
	end
	f:close()
end

-- flush at lua_close (a __gc of an object kept until then) and at
-- os.exit, which does not close the state unless asked
debug.getregistry()["kbx oracle-lua-hook"] = setmetatable({}, { __gc = flush })
local exit = os.exit
os.exit = function(...)
	flush()
	return exit(...)
end

local create, resume = coroutine.create, coroutine.resume
coroutine.create = function(f)
	local co = create(f)
	sethook(co, hook, "c")
	return co
end
coroutine.wrap = function(f)
	local co = coroutine.create(f)
	return function(...)
		local r = table.pack(resume(co, ...))
		if not r[1] then
			error(r[2], 0)
		end
		return table.unpack(r, 2, r.n)
	end
end

sethook(hook, "c")

-- :checkhealth ctxmap: the binary, its version, whether the server starts and answers, the root.
local client = require("ctxmap.client")

local M = {}

-- The reporting functions moved from require("health").report_* (0.7) to vim.health.* (0.10).
local health = vim.health or require("health")
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local err = health.error or health.report_error
local info = health.info or health.report_info

local function framed(msg)
  local body = vim.fn.json_encode(msg)
  return string.format("Content-Length: %d\r\n\r\n%s", #body, body)
end

-- next_message takes one framed message off the front of buf: the message (decoded) and the rest, or
-- nil while the message is incomplete.
local function next_message(buf)
  local head_end = buf:find("\r\n\r\n", 1, true)
  if not head_end then
    return nil, buf
  end
  local len = tonumber(buf:sub(1, head_end):match("[Cc]ontent%-[Ll]ength: *(%d+)"))
  if not len then
    return nil, buf
  end
  local body_start = head_end + 4
  if #buf < body_start + len - 1 then
    return nil, buf
  end
  local ok_decode, msg = pcall(vim.fn.json_decode, buf:sub(body_start, body_start + len - 1))
  return ok_decode and msg or {}, buf:sub(body_start + len)
end

-- handshake starts the server apart from the editor's clients, sends initialize, shutdown and exit,
-- and returns the initialize result, or nil and what went wrong.
local function handshake(cmd, root, timeout_ms)
  local out, stderr, replies, exited = "", {}, {}, false
  local job = vim.fn.jobstart(cmd, {
    on_stdout = function(_, data)
      out = out .. table.concat(data, "\n")
      while true do
        local msg
        msg, out = next_message(out)
        if not msg then
          break
        end
        if type(msg) == "table" and msg.id ~= nil and msg.method == nil then
          replies[msg.id] = msg
        end
      end
    end,
    on_stderr = function(_, data)
      vim.list_extend(stderr, data)
    end,
    on_exit = function()
      exited = true
    end,
  })
  if job <= 0 then
    return nil, "could not run " .. table.concat(cmd, " ")
  end
  -- send fails once the process is gone; that is reported by the missing answer, not here
  local function send(msg)
    return pcall(vim.fn.chansend, job, framed(msg))
  end
  local function finish()
    if send({ jsonrpc = "2.0", id = 2, method = "shutdown" }) then
      vim.wait(3000, function()
        return replies[2] ~= nil
      end, 20)
      send({ jsonrpc = "2.0", method = "exit" })
    end
    if vim.fn.jobwait({ job }, 3000)[1] == -1 then
      vim.fn.jobstop(job)
    end
  end
  send({
    jsonrpc = "2.0",
    id = 1,
    method = "initialize",
    params = {
      processId = vim.fn.getpid(),
      rootUri = vim.uri_from_fname(root),
      capabilities = vim.empty_dict(),
      workspaceFolders = { { uri = vim.uri_from_fname(root), name = root } },
    },
  })
  vim.wait(timeout_ms, function()
    return replies[1] ~= nil or exited
  end, 20)
  if not replies[1] then
    finish()
    local tail = vim.trim(table.concat(stderr, "\n"))
    local why = exited and "it exited without answering initialize"
      or string.format("no answer to initialize within %d ms", timeout_ms)
    return nil, why .. (tail ~= "" and (": " .. tail) or "")
  end
  send({ jsonrpc = "2.0", method = "initialized", params = vim.empty_dict() })
  finish()
  local reply = replies[1]
  if reply.error then
    return nil, "initialize failed: " .. (reply.error.message or vim.inspect(reply.error))
  end
  return reply.result or {}
end

local function current_root(cfg)
  local file = client.file_of(vim.api.nvim_get_current_buf())
  local from = file or vim.fn.getcwd()
  return client.find_root(from, cfg.root_markers), from
end

function M.check()
  local cfg = require("ctxmap").config
  start("ctxmap")

  local bin = cfg.cmd[1]
  if vim.fn.executable(bin) ~= 1 then
    err(
      string.format("binary %q not found", bin),
      { "go install github.com/ctxmap/ctxmap@latest", "or set cmd = { '/path/to/ctxmap', 'serve', '--stdio' } in setup()" }
    )
    return
  end
  ok("binary: " .. vim.fn.exepath(bin))

  local version = vim.trim(vim.fn.system({ bin, "version" }))
  if vim.v.shell_error ~= 0 then
    err(string.format("`%s version` failed (exit %d): %s", bin, vim.v.shell_error, version))
  elseif not version:match("^ctxmap ") then
    warn(string.format("`%s version` printed %q: is this the ctxmap binary?", bin, version))
  else
    ok("version: " .. version)
  end

  local root, from = current_root(cfg)
  if root then
    ok("root: " .. root)
  else
    warn(
      string.format("no root above %s (markers: %s)", from, table.concat(cfg.root_markers, ", ")),
      { "ctxmap attaches to files inside a project: a folder with one of the markers" }
    )
  end

  local running = client.running()
  if root and running[root] then
    local c = running[root]
    local st, why = client.execute_sync(c, "ctxmap.status", nil, 3000)
    if st then
      ok(
        string.format(
          "server running (client %d): %s, %s files, %s definitions",
          c.id,
          st.ready == true and "ready" or "indexing",
          tostring(st.files),
          tostring(st.definitions)
        )
      )
    else
      err(string.format("server running (client %d) but ctxmap.status failed: %s", c.id, why))
    end
  else
    local dir = root
    if not dir then
      dir = vim.fn.tempname() -- an empty folder: nothing to index outside a project
      vim.fn.mkdir(dir, "p")
    end
    local result, why = handshake(cfg.cmd, dir, 10000)
    if result then
      local name = type(result.serverInfo) == "table" and result.serverInfo.name or table.concat(cfg.cmd, " ")
      ok(string.format("server starts and answers initialize (%s)", name))
    else
      err("server does not start: " .. why, { "run `" .. table.concat(cfg.cmd, " ") .. "` in a terminal to see why" })
    end
  end
  for r, c in pairs(running) do
    if r ~= root then
      info(string.format("also running: client %d for %s", c.id, r))
    end
  end
end

return M

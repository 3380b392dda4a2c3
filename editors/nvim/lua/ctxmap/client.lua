-- One ctxmap language server per workspace root, shared by every buffer under that root.
local M = {}

local by_root = {} -- root folder -> client id

local uv = vim.uv or vim.loop

local function notify(msg, level)
  vim.schedule(function()
    vim.notify("ctxmap: " .. msg, level or vim.log.levels.INFO)
  end)
end

-- find_root is the nearest folder at or above path's folder holding one of markers, or nil.
function M.find_root(path, markers)
  local dir = vim.fn.fnamemodify(path, ":p")
  if vim.fn.isdirectory(dir) == 0 then
    dir = vim.fn.fnamemodify(dir, ":h")
  end
  dir = dir:gsub("/+$", "")
  if dir == "" then
    dir = "/"
  end
  while true do
    for _, marker in ipairs(markers) do
      if uv.fs_stat(dir .. "/" .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      return nil
    end
    dir = parent
  end
end

-- file_of is the file a buffer edits, or nil for help, terminals, scratch and remote (scheme://) buffers.
function M.file_of(bufnr)
  if vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%a[%w+.-]*://") then
    return nil
  end
  return name
end

local function wants(cfg, bufnr)
  if not cfg.filetypes then
    return true
  end
  local ft = vim.bo[bufnr].filetype
  for _, want in ipairs(cfg.filetypes) do
    if want == ft then
      return true
    end
  end
  return false
end

-- init_options are sent as an object even when empty: an empty Lua table would encode as [].
local function init_options(cfg)
  local opts = { budget = cfg.budget, format = cfg.format }
  if next(opts) == nil then
    return vim.empty_dict()
  end
  return opts
end

-- map_hover makes K show the hover in bufnr, unless the buffer maps K already.
local function map_hover(cfg, bufnr)
  local key = cfg.keymaps and cfg.keymaps.hover
  if not key then
    return
  end
  local existing = vim.api.nvim_buf_call(bufnr, function()
    return vim.fn.maparg(key, "n", false, true)
  end)
  if type(existing) == "table" and existing.buffer == 1 then
    return -- the user (or another server's setup) already chose what K does here
  end
  vim.api.nvim_buf_set_keymap(bufnr, "n", key, "<cmd>lua vim.lsp.buf.hover()<CR>", {
    noremap = true,
    silent = true,
    desc = "ctxmap: hover",
  })
end

-- lenses keeps the "Copy context for LLM" code lenses of bufnr current.
local function lenses(cfg, bufnr)
  if not cfg.codelens then
    return
  end
  local codelens = vim.lsp.codelens
  if codelens.enable then -- lenses that refresh themselves
    pcall(codelens.enable, true, { bufnr = bufnr })
    return
  end
  local function refresh()
    if vim.fn.has("nvim-0.10") == 1 then
      pcall(codelens.refresh, { bufnr = bufnr })
    elseif bufnr == vim.api.nvim_get_current_buf() then
      pcall(codelens.refresh) -- refreshes the current buffer only
    end
  end
  vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, {
    group = vim.api.nvim_create_augroup("ctxmap_lens_" .. bufnr, { clear = true }),
    buffer = bufnr,
    callback = refresh,
    desc = "ctxmap: refresh code lenses",
  })
  refresh()
end

local function client_config(cfg, root)
  return {
    name = "ctxmap",
    cmd = cfg.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = init_options(cfg),
    on_attach = function(_, bufnr)
      map_hover(cfg, bufnr)
      lenses(cfg, bufnr)
    end,
    on_exit = function(code, signal, client_id)
      if by_root[root] == client_id then
        by_root[root] = nil
      end
      if code ~= 0 and signal ~= 15 then
        notify(
          string.format("the server for %s exited (code %d, signal %d); see :checkhealth ctxmap", root, code, signal),
          vim.log.levels.ERROR
        )
      end
    end,
  }
end

-- attach connects bufnr to the server of its root, starting the server when the root has none yet.
-- Buffers outside any root, or of other filetypes, are left alone.
function M.attach(cfg, bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or not wants(cfg, bufnr) then
    return nil
  end
  local file = M.file_of(bufnr)
  local root = file and M.find_root(file, cfg.root_markers)
  if not root then
    return nil
  end
  local id = by_root[root]
  if id and vim.lsp.buf_is_attached(bufnr, id) then
    return id
  end
  if vim.fn.executable(cfg.cmd[1]) ~= 1 then
    vim.notify_once(
      string.format("ctxmap: %q not found; install ctxmap or set cmd in setup() (:checkhealth ctxmap)", cfg.cmd[1]),
      vim.log.levels.ERROR
    )
    return nil
  end
  if vim.lsp.start then
    -- 0.8.0 attaches the current buffer whatever opts.bufnr says
    vim.api.nvim_buf_call(bufnr, function()
      id = vim.lsp.start(client_config(cfg, root), { bufnr = bufnr })
    end)
  else
    if not id or not vim.lsp.get_client_by_id(id) then
      id = vim.lsp.start_client(client_config(cfg, root))
    end
    if id and not vim.lsp.buf_attach_client(bufnr, id) then
      id = nil
    end
  end
  if not id then
    notify("could not start " .. table.concat(cfg.cmd, " ") .. " for " .. root, vim.log.levels.ERROR)
    return nil
  end
  by_root[root] = id
  return id
end

-- for_buffer is the ctxmap client attached to bufnr, or nil.
function M.for_buffer(bufnr)
  for _, id in pairs(by_root) do
    if vim.lsp.buf_is_attached(bufnr, id) then
      return vim.lsp.get_client_by_id(id)
    end
  end
  return nil
end

-- any is the client for the current folder's root, else the only running one: buffers that are not
-- project files (a pasted issue in a scratch buffer) are sent as text to it.
function M.any(cfg)
  local root = M.find_root(vim.fn.getcwd(), cfg.root_markers)
  if root and by_root[root] then
    return vim.lsp.get_client_by_id(by_root[root])
  end
  local only
  for _, id in pairs(by_root) do
    if only then
      return nil
    end
    only = id
  end
  return only and vim.lsp.get_client_by_id(only)
end

-- running lists the live clients by root.
function M.running()
  local out = {}
  for root, id in pairs(by_root) do
    local client = vim.lsp.get_client_by_id(id)
    if client then
      out[root] = client
    end
  end
  return out
end

-- call calls the client's method name: client:name(...) from Neovim 0.11, which made them methods
-- and deprecated the field form client.name(...).
local methods = vim.fn.has("nvim-0.11") == 1
local function call(client, name, ...)
  if methods then
    return client[name](client, ...)
  end
  return client[name](...)
end

function M.request(client, method, params, handler, bufnr)
  return call(client, "request", method, params, handler, bufnr)
end

function M.request_sync(client, method, params, timeout_ms, bufnr)
  return call(client, "request_sync", method, params, timeout_ms, bufnr)
end

local function command_params(command, args)
  return { command = command, arguments = { args or vim.empty_dict() } }
end

-- execute runs a ctxmap workspace command; on_result gets the answer, errors are reported to the user.
function M.execute(client, command, args, on_result, bufnr)
  return M.request(client, "workspace/executeCommand", command_params(command, args), function(err, result)
    if err then
      vim.notify(string.format("ctxmap: %s: %s", command, err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if result == vim.NIL then
      result = nil
    end
    on_result(result)
  end, bufnr)
end

-- execute_sync waits at most timeout_ms; it returns the answer, or nil and a message.
function M.execute_sync(client, command, args, timeout_ms, bufnr)
  local resp, err = M.request_sync(client, "workspace/executeCommand", command_params(command, args), timeout_ms, bufnr)
  if not resp then
    return nil, err or "no answer"
  end
  if resp.err then
    return nil, resp.err.message or vim.inspect(resp.err)
  end
  if resp.result == vim.NIL then
    return nil, "empty answer"
  end
  return resp.result
end

return M

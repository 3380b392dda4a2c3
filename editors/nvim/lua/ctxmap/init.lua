-- ctxmap for Neovim: starts `ctxmap serve --stdio` for each project and adds what a language server
-- cannot do by itself: registers, scratch buffers, the quickfix list.
local client = require("ctxmap.client")
local commands = require("ctxmap.commands")

local M = {}

local defaults = {
  cmd = { "ctxmap", "serve", "--stdio" },
  budget = nil, -- tokens per pack; nil leaves it to .ctxmap.yaml or the server (8000)
  format = nil, -- markdown, xml or json; nil leaves it to .ctxmap.yaml or the server (markdown)
  fill = false, -- true: packs fill the budget instead of stopping when the evidence does
  filetypes = nil, -- nil: every file inside a project
  root_markers = { ".ctxmap.yaml", ".git" },
  explore_limit = 50,
  codelens = true, -- "Copy context for LLM" above TODO/FIXME comments and issue headings
  opener = nil, -- what :CtxmapMap opens its page with: a command list ({ "firefox" }) or a function(path); nil: the system's
  -- lhs per action; false or nil leaves the key alone. hover is buffer-local, on attach.
  keymaps = { hover = "K", copy = false, show = false, explore = false, status = false },
}

M.config = vim.deepcopy(defaults)

local function check(cfg)
  if type(cfg.cmd) == "string" then
    cfg.cmd = { cfg.cmd, "serve", "--stdio" }
  end
  local types = {
    cmd = "table",
    budget = "number",
    format = "string",
    filetypes = "table",
    root_markers = "table",
    keymaps = "table",
    explore_limit = "number",
    codelens = "boolean",
    fill = "boolean",
  }
  if cfg.opener ~= nil and type(cfg.opener) ~= "table" and type(cfg.opener) ~= "function" then
    return "opener: expected a command list or a function, got " .. type(cfg.opener)
  end
  for key, want in pairs(types) do
    local v = cfg[key]
    local optional = key == "budget" or key == "format" or key == "filetypes"
    if key == "opener" then
      optional = true
    end
    if not (type(v) == want or (optional and v == nil)) then
      return string.format("%s: expected a %s, got %s", key, want, type(v))
    end
  end
  if #cfg.cmd == 0 then
    return "cmd: give the server command, e.g. { 'ctxmap', 'serve', '--stdio' }"
  end
  if cfg.format and cfg.format ~= "markdown" and cfg.format ~= "xml" and cfg.format ~= "json" then
    return string.format("format: %q is not one of markdown, xml, json", cfg.format)
  end
  if cfg.budget and cfg.budget < 100 then
    return string.format("budget: %d is below the minimum of 100 tokens", cfg.budget)
  end
  return nil
end

local actions = {
  copy = { cmd = "CtxmapCopy", visual = true },
  show = { cmd = "CtxmapShow", visual = true },
  explore = { cmd = "CtxmapExplore" },
  status = { cmd = "CtxmapStatus" },
}

local function set_keymaps(cfg)
  for name, action in pairs(actions) do
    local lhs = cfg.keymaps[name]
    if lhs then
      local desc = "ctxmap: " .. name
      vim.api.nvim_set_keymap("n", lhs, "<cmd>" .. action.cmd .. "<CR>", { noremap = true, desc = desc })
      if action.visual then
        vim.api.nvim_set_keymap("x", lhs, ":" .. action.cmd .. "<CR>", { noremap = true, silent = true, desc = desc })
      end
    end
  end
end

local function define_commands()
  local cmd = vim.api.nvim_create_user_command
  cmd("CtxmapCopy", function(o)
    commands.copy(M.config, o)
  end, { range = true, desc = "Copy the context pack of the selection or the comment under the cursor" })
  cmd("CtxmapShow", function(o)
    commands.show(M.config, o)
  end, { range = true, desc = "Show the context pack in a scratch buffer" })
  -- a command about an entity takes one name, or none, completed from the server's entities
  local function entity_cmd(name, run, desc)
    cmd(name, function(o)
      run(M.config, o.args)
    end, {
      nargs = "?",
      complete = function(arglead)
        return commands.complete_entity(M.config, arglead)
      end,
      desc = desc,
    })
  end
  entity_cmd("CtxmapExplore", commands.explore, "List the code about an entity in the quickfix list")
  cmd("CtxmapStatus", function()
    commands.status(M.config)
  end, { desc = "Show what the ctxmap server has indexed" })
  entity_cmd("CtxmapMap", commands.map, "Write the entity map as an HTML page and open it")
  cmd("CtxmapReindex", function()
    commands.reindex(M.config)
  end, { desc = "Rebuild the ctxmap index" })
end

function M.setup(opts)
  opts = opts or {}
  if type(opts) ~= "table" then
    vim.notify("ctxmap: setup: expected a table of options", vim.log.levels.ERROR)
    return
  end
  local cfg = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts)
  for _, list in ipairs({ "cmd", "root_markers", "filetypes" }) do
    if opts[list] ~= nil then
      cfg[list] = opts[list] -- lists replace the default, they do not merge index by index
    end
  end
  local err = check(cfg)
  if err then
    vim.notify("ctxmap: setup: " .. err, vim.log.levels.ERROR)
    return
  end
  M.config = cfg
  define_commands()
  set_keymaps(cfg)
  -- the server's code lenses name this command; it runs here, where the registers are
  vim.lsp.commands["ctxmap.copyContext"] = function(command, ctx)
    commands.copy_lens(M.config, command, ctx)
  end

  local group = vim.api.nvim_create_augroup("ctxmap", { clear = true })
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile", "FileType" }, {
    group = group,
    callback = function(ev)
      client.attach(M.config, ev.buf)
    end,
    desc = "ctxmap: attach the project's server",
  })
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      client.attach(cfg, bufnr)
    end
  end
end

-- The Lua side of the commands, for mappings of one's own. opts for copy/show: { range, line1, line2 }
-- as a user command gets them; without a range the comment under the cursor is used.
function M.copy(opts, done)
  commands.copy(M.config, opts or {}, done)
end

function M.show(opts, done)
  commands.show(M.config, opts or {}, done)
end

function M.explore(name, done)
  commands.explore(M.config, name, done)
end

function M.status(done)
  commands.status(M.config, done)
end

-- client is the ctxmap client attached to a buffer (default: the current one), or nil.
function M.client(bufnr)
  return client.for_buffer(bufnr or vim.api.nvim_get_current_buf())
end

return M

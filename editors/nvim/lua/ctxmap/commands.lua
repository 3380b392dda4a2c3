-- The editor side of the server's commands: what to ask for (the selection, or the cursor's comment) and
-- where the answer goes (a register, a scratch buffer, the quickfix list).
local client = require("ctxmap.client")
local position = require("ctxmap.position")

local M = {}

local function info(msg)
  vim.notify(msg, vim.log.levels.INFO)
end

local function fail(msg)
  vim.notify("ctxmap: " .. msg, vim.log.levels.ERROR)
end

-- thousands renders 7842 as "7,842".
local function thousands(n)
  local s = tostring(math.floor(tonumber(n) or 0))
  local out = s:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (out:gsub("^,", ""))
end

local definition_kinds = { definition = true, test = true, caller = true }

-- summary is "N tokens: F files (W whole), D definitions, O outlined" for a pack, counted as VS Code
-- counts it (src/context.ts, summarisePack); a pack of whole files does not say "0 definitions".
function M.summary(pack)
  local items = type(pack.items) == "table" and pack.items or {}
  local shown, files, whole, defs = {}, 0, 0, 0
  for _, item in ipairs(items) do
    if item.path and item.kind ~= "outline" and not shown[item.path] then
      shown[item.path] = true
      files = files + 1
    end
    if item.kind == "file" then
      whole = whole + 1
    elseif definition_kinds[item.kind] then
      defs = defs + 1
    end
  end
  local outlined, seen = 0, {}
  for _, item in ipairs(items) do
    if item.path and item.kind == "outline" and not shown[item.path] and not seen[item.path] then
      seen[item.path] = true
      outlined = outlined + 1
    end
  end
  local parts = { string.format("%d file%s", files, files == 1 and "" or "s") }
  if whole > 0 then
    parts[1] = parts[1] .. string.format(" (%d whole)", whole)
  end
  if defs > 0 or whole == 0 then
    table.insert(parts, string.format("%d definition%s", defs, defs == 1 and "" or "s"))
  end
  if outlined > 0 then
    table.insert(parts, string.format("%d outlined", outlined))
  end
  return string.format("%s tokens: %s", thousands(pack.tokens), table.concat(parts, ", "))
end

-- render is what the user gets: the pack's text, or the whole pack when the format is json; and the
-- filetype to show it with (the format may come from .ctxmap.yaml, so the text is looked at).
local function render(cfg, pack)
  if cfg.format == "json" then
    return vim.fn.json_encode(pack), "json"
  end
  local text = type(pack.text) == "string" and pack.text or ""
  return text, text:match("^%s*<") and "xml" or "markdown"
end

-- The selection as [start row, start byte, end row, exclusive end byte] (0-based; nil bytes mean whole
-- lines): a charwise visual selection when the command's range is the last one, else the range's lines.
local function selection(bufnr, opts)
  local s = vim.api.nvim_buf_get_mark(bufnr, "<")
  local e = vim.api.nvim_buf_get_mark(bufnr, ">")
  if vim.fn.visualmode() == "v" and s[1] == opts.line1 and e[1] == opts.line2 then
    local last = vim.api.nvim_buf_get_lines(bufnr, e[1] - 1, e[1], false)[1] or ""
    local stop = vim.o.selection == "exclusive" and math.min(e[2], #last) or position.char_end(last, e[2])
    return s[1] - 1, s[2], e[1] - 1, stop
  end
  return opts.line1 - 1, nil, opts.line2 - 1, nil
end

-- paragraph is the text between blank lines around the cursor.
local function paragraph(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local first, last = row, row
  while first > 1 and lines[first - 1]:match("%S") do
    first = first - 1
  end
  while last < #lines and lines[last + 1]:match("%S") do
    last = last + 1
  end
  return table.concat(vim.list_slice(lines, first, last), "\n")
end

-- context_args says what the pack is about: a range or the cursor in a file the server has open, or
-- the text itself for a buffer it does not know (a pasted issue in a scratch buffer).
local function context_args(cfg, c, bufnr, opts)
  local args = { budget = cfg.budget, format = cfg.format, fill = cfg.fill }
  if vim.lsp.buf_is_attached(bufnr, c.id) then
    local enc = c.offset_encoding or "utf-16"
    args.uri = vim.uri_from_bufnr(bufnr)
    if opts.range and opts.range > 0 then
      local srow, sbyte, erow, ebyte = selection(bufnr, opts)
      args.range = position.range(bufnr, srow, sbyte, erow, ebyte, enc)
    else
      args.position = position.cursor(0, enc)
    end
    return args
  end
  if opts.range and opts.range > 0 then
    local srow, sbyte, erow, ebyte = selection(bufnr, opts)
    local lines = vim.api.nvim_buf_get_lines(bufnr, srow, erow + 1, false)
    if sbyte and #lines > 0 then
      lines[#lines] = lines[#lines]:sub(1, ebyte)
      lines[1] = lines[1]:sub(sbyte + 1)
    end
    args.text = table.concat(lines, "\n")
  else
    args.text = paragraph(bufnr)
  end
  if not args.text:match("%S") then
    return nil, "nothing to ask about: select the text of an issue or put the cursor in it"
  end
  return args
end

-- context asks the server for the pack of the selection (opts.range > 0: opts.line1..line2) or of the
-- comment under the cursor, and calls on_pack(pack) with the answer.
function M.context(cfg, opts, on_pack)
  local bufnr = vim.api.nvim_get_current_buf()
  local c = client.for_buffer(bufnr) or client.any(cfg)
  if not c then
    return fail("no server for this buffer: open a file inside a project (a folder with .git) first")
  end
  local args, err = context_args(cfg, c, bufnr, opts or {})
  if not args then
    return fail(err)
  end
  client.execute(c, "ctxmap.context", args, function(pack)
    if type(pack) ~= "table" then
      return fail("the server sent no pack")
    end
    on_pack(pack)
  end, bufnr)
end

-- put copies the pack into the + register (the clipboard), or the unnamed register without a clipboard.
local function put(cfg, pack)
  local text = render(cfg, pack)
  local msg = "Copied " .. M.summary(pack)
  if vim.fn.has("clipboard") == 1 and pcall(vim.fn.setreg, "+", text) then
    info(msg)
  else
    vim.fn.setreg('"', text)
    info(msg .. ' (no clipboard provider: in the unnamed register ")')
  end
end

function M.copy(cfg, opts, done)
  M.context(cfg, opts, function(pack)
    put(cfg, pack)
    if done then
      done(pack)
    end
  end)
end

-- copy_lens runs a "Copy context for LLM" code lens (above a TODO, or a heading of an issue file): the
-- server put the {uri, range} to ask about in its argument.
function M.copy_lens(cfg, command, ctx)
  local c = vim.lsp.get_client_by_id(ctx.client_id)
  local arg = type(command.arguments) == "table" and command.arguments[1]
  if not c or type(arg) ~= "table" then
    return fail("this code lens carries no range")
  end
  local args = vim.tbl_extend("force", { budget = cfg.budget, format = cfg.format, fill = cfg.fill }, arg)
  client.execute(c, "ctxmap.context", args, function(pack)
    if type(pack) == "table" then
      put(cfg, pack)
    end
  end, ctx.bufnr)
end

local shown = 0

-- show opens the pack in a scratch buffer.
function M.show(cfg, opts, done)
  M.context(cfg, opts, function(pack)
    local text, ft = render(cfg, pack)
    vim.cmd("vertical botright new")
    local buf = vim.api.nvim_get_current_buf()
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].swapfile = false
    shown = shown + 1
    pcall(vim.api.nvim_buf_set_name, buf, string.format("ctxmap://context/%d", shown))
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, "\n", { plain = true }))
    vim.bo[buf].filetype = ft
    info(M.summary(pack))
    if done then
      done(pack, buf)
    end
  end)
end

local function current(cfg)
  local c = client.for_buffer(vim.api.nvim_get_current_buf()) or client.any(cfg)
  if not c then
    fail("no server running: open a file inside a project (a folder with .git) first")
  end
  return c
end

-- The entity names for completion, kept briefly: completion asks on every key.
local entity_cache = {} -- client id -> { at = seconds, names = {...} }

local function entity_names(c)
  local cached = entity_cache[c.id]
  if cached and os.time() - cached.at < 30 then
    return cached.names
  end
  local list = client.execute_sync(c, "ctxmap.entities", { top = 200 }, 2000)
  local names = {}
  for _, e in ipairs(type(list) == "table" and list or {}) do
    if type(e) == "table" and type(e.name) == "string" then
      names[#names + 1] = e.name
    end
  end
  entity_cache[c.id] = { at = os.time(), names = names }
  return names
end

function M.complete_entity(cfg, arglead)
  local c = client.for_buffer(vim.api.nvim_get_current_buf()) or client.any(cfg)
  if not c then
    return {}
  end
  local lead = arglead:upper()
  local out = {}
  for _, name in ipairs(entity_names(c)) do
    if name:upper():sub(1, #lead) == lead then
      out[#out + 1] = name
    end
  end
  return out
end

local function chunk_text(ch)
  local what = (type(ch.symbol) == "string" and ch.symbol ~= "") and ch.symbol or "(file)"
  local parts = { what }
  if type(ch.kind) == "string" and ch.kind ~= "" then
    parts[#parts + 1] = "[" .. ch.kind .. "]"
  end
  if type(ch.mentions) == "number" then
    parts[#parts + 1] = string.format("%d mention%s", ch.mentions, ch.mentions == 1 and "" or "s")
  end
  return table.concat(parts, " ")
end

-- with_server makes a command of fn(cfg, c, ...), c being the current buffer's server or else any
-- running one; without one the command says so and does nothing.
local function with_server(fn)
  return function(cfg, ...)
    local c = current(cfg)
    if c then
      return fn(cfg, c, ...)
    end
  end
end

-- explore puts the chunks about an entity into the quickfix list; without a name it offers the list.
M.explore = with_server(function(cfg, c, name, done)
  if not name or not name:match("%S") then
    vim.ui.select(entity_names(c), { prompt = "ctxmap entity: " }, function(choice)
      if choice then
        M.explore(cfg, choice, done)
      end
    end)
    return
  end
  name = vim.trim(name)
  client.execute(c, "ctxmap.exploreEntity", { name = name, limit = cfg.explore_limit }, function(res)
    local chunks = type(res) == "table" and res.chunks or {}
    if type(chunks) ~= "table" or #chunks == 0 then
      return info("ctxmap: nothing found about " .. name)
    end
    local root = c.config.root_dir
    local items = {}
    for _, ch in ipairs(chunks) do
      items[#items + 1] = {
        filename = root .. "/" .. ch.path,
        lnum = math.max(1, tonumber(ch.startLine) or 1),
        end_lnum = tonumber(ch.endLine),
        text = chunk_text(ch),
      }
    end
    local title = "ctxmap: " .. ((type(res.entity) == "table" and res.entity.name) or name)
    vim.fn.setqflist({}, " ", { title = title, items = items })
    vim.cmd("copen")
    if done then
      done(res)
    end
  end)
end)

-- status echoes what the server has indexed.
M.status = with_server(function(_, c, done)
  client.execute(c, "ctxmap.status", nil, function(st)
    if type(st) ~= "table" then
      return fail("the server sent no status")
    end
    local state = st.ready == true and "ready" or "indexing"
    if st.ready == true and st.indexing == true then
      state = "ready, updating"
    end
    local msg = string.format(
      "ctxmap: %s; %s files, %s definitions, %s entities",
      state,
      thousands(st.files),
      thousands(st.definitions),
      thousands(st.entities)
    )
    if type(st.lastUpdate) == "string" and st.lastUpdate ~= "" then
      msg = msg .. "; updated " .. st.lastUpdate
    end
    msg = msg .. "; root " .. tostring(st.root ~= vim.NIL and st.root or c.config.root_dir)
    if type(st.vectors) == "string" and st.vectors ~= "" then
      msg = msg .. "; vectors " .. st.vectors
    end
    info(msg)
    if done then
      done(st)
    end
  end)
end)

-- open_file hands a file to the configured opener, else the system's (a browser for an HTML page).
local function open_file(cfg, path)
  if type(cfg.opener) == "function" then
    return cfg.opener(path)
  end
  if type(cfg.opener) == "table" then
    local cmd = vim.list_extend(vim.deepcopy(cfg.opener), { path })
    return vim.fn.jobstart(cmd, { detach = true })
  end
  if vim.ui.open then
    return vim.ui.open(path)
  end
  local opener = vim.fn.has("mac") == 1 and "open" or "xdg-open"
  if vim.fn.executable(opener) == 0 then
    return fail("no " .. opener .. " to open " .. path .. "; set the opener option")
  end
  return vim.fn.jobstart({ opener, path }, { detach = true })
end

-- map writes the entity map (around one entity when a name is given) as an HTML page and opens it.
M.map = with_server(function(cfg, c, name, done)
  local args = vim.empty_dict() -- {} would go as a JSON array
  if name and name:match("%S") then
    args = { entity = vim.trim(name) }
  end
  client.execute(c, "ctxmap.entityMap", args, function(res)
    if type(res) ~= "table" or type(res.html) ~= "string" then
      return fail("the server sent no entity map")
    end
    local dir = vim.fn.stdpath("cache") .. "/ctxmap"
    vim.fn.mkdir(dir, "p")
    local path = dir .. "/entity-map.html"
    local f, err = io.open(path, "w")
    if not f then
      return fail("cannot write " .. path .. ": " .. tostring(err))
    end
    f:write(res.html)
    f:close()
    info(string.format("ctxmap: entity map of %d entities in %s", tonumber(res.entities) or 0, path))
    open_file(cfg, path)
    if done then
      done(path)
    end
  end)
end)

M.reindex = with_server(function(_, c)
  client.execute(c, "ctxmap.reindex", nil, function()
    info("ctxmap: reindexing " .. c.config.root_dir)
  end)
end)

return M

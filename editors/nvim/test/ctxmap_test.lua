-- End-to-end test of the plugin in a headless Neovim against a real ctxmap server. run.sh sets:
--   CTXMAP_BIN        the ctxmap binary
--   CTXMAP_WORKSPACE  a git repository to open
--   CTXMAP_FILE       a file in it (relative) with a comment that mentions CTXMAP_WORD
--   CTXMAP_WORD       a domain word
--   CTXMAP_EXPECT     a Lua pattern the pack for that comment must contain
--   CTXMAP_BUDGET     the token budget of the packs
--   CTXMAP_UTF16_LINE optional: text of a comment line holding a 4-byte character before CTXMAP_WORD
--   CTXMAP_DUMP       optional: a folder to write the hover (hover.md) and the copied pack (pack.md) to
local env = function(name, default)
  local v = os.getenv(name)
  if v == nil or v == "" then
    return default
  end
  return v
end

local bin = env("CTXMAP_BIN")
local workspace = env("CTXMAP_WORKSPACE")
local file = env("CTXMAP_FILE")
local word = env("CTXMAP_WORD")
local expect = env("CTXMAP_EXPECT")
local budget = tonumber(env("CTXMAP_BUDGET", "3000"))
local utf16_line = env("CTXMAP_UTF16_LINE")
local dump = env("CTXMAP_DUMP")

local failures = 0

local function log(fmt, ...)
  io.stderr:write(string.format(fmt, ...) .. "\n")
end

local function check(name, cond, detail)
  if cond then
    log("ok   %s", name)
  else
    failures = failures + 1
    log("FAIL %s%s", name, detail and (": " .. detail) or "")
  end
  return cond
end

-- must stops the test: what follows depends on it.
local function must(name, cond, detail)
  if not check(name, cond, detail) then
    error("cannot go on after: " .. name, 0)
  end
end

local function messages()
  return vim.fn.execute("messages")
end

local function save(name, text)
  if dump and text then
    vim.fn.writefile(vim.split(text, "\n", { plain = true }), dump .. "/" .. name)
  end
end

local function clip(s, n)
  s = tostring(s)
  return #s > n and (s:sub(1, n) .. "...") or s
end

-- utf16 is the oracle for the plugin's own conversion: Neovim's str_utfindex (its signature changed
-- in 0.11).
local function utf16(line, byte)
  if vim.fn.has("nvim-0.11") == 1 then
    return vim.str_utfindex(line, "utf-16", byte)
  end
  local _, u16 = vim.str_utfindex(line, byte)
  return u16
end

local function test_positions()
  local position = require("ctxmap.position")
  local cases = {
    { "plain ascii", "// the invoice", 7 },
    { "after an emoji (surrogate pair)", "// 🧾 invoice", #"// 🧾 " },
    { "after accents", "// facture réglée: invoice", #"// facture réglée: " },
    { "after CJK", "// 请求 invoice", #"// 请求 " },
  }
  for _, c in ipairs(cases) do
    local name, line, byte = c[1], c[2], c[3]
    local got, want = position.col(line, byte, "utf-16"), utf16(line, byte)
    check("utf-16 column " .. name, got == want, string.format("got %d, want %d", got, want))
    check("utf-8 column " .. name, position.col(line, byte, "utf-8") == byte)
  end
  local line = "ab🧾c"
  check("selection end after a 4-byte character", position.char_end(line, 2) == 6)
  check("selection end past the line", position.char_end(line, 99) == #line)
end

-- test_summary: the copy message counts what a pack shows, as VS Code's does.
local function test_summary()
  local summary = require("ctxmap.commands").summary
  local classic = {
    tokens = 7842,
    items = {
      { kind = "definition", path = "rules/index.go", symbol = "RuleIndex" },
      { kind = "caller", path = "profile/service.go", symbol = "Service.Change" },
      { kind = "import", path = "rules/index.go" },
    },
  }
  local got = summary(classic)
  check("summary of definitions", got == "7,842 tokens: 2 files, 2 definitions", got)
  local whole = {
    tokens = 4429,
    items = {
      { kind = "file", path = "cart/cart.go" },
      { kind = "file", path = "cart/total.go" },
      { kind = "outline", path = "cart/total.go" },
      { kind = "outline", path = "order/order.go" },
    },
  }
  got = summary(whole)
  check("summary of whole files", got == "4,429 tokens: 2 files (2 whole), 1 outlined", got)
end

-- find_comment is the first line (0-based) of the buffer that is a comment mentioning word, and the
-- byte column of the word in it.
local function find_comment(bufnr, w, after)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  for i, line in ipairs(lines) do
    local lower = line:lower()
    local at = lower:find("%f[%w]" .. w:lower() .. "%f[^%w]")
    local marker = line:find("//", 1, true) or line:find("#", 1, true)
    if at and marker and marker < at and (not after or line:find(after, 1, true)) then
      return i - 1, at - 1, line
    end
  end
end

local function ctxmap_client(bufnr)
  return require("ctxmap").client(bufnr)
end

local function wait_ready(c)
  local client = require("ctxmap.client")
  local last
  local ready = vim.wait(240000, function()
    local st = client.execute_sync(c, "ctxmap.status", nil, 5000)
    last = st
    return type(st) == "table" and st.ready == true
  end, 250)
  return ready, last
end

local function hover_text(bufnr, row, col)
  local resp = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = row, character = col },
  }, 20000)
  for _, r in pairs(resp or {}) do
    if r.result and r.result ~= vim.NIL then
      return table.concat(vim.lsp.util.convert_input_to_markdown_lines(r.result.contents), "\n")
    end
    if r.err then
      return nil, r.err.message
    end
  end
  return nil, "no hover"
end

local function copied_tokens(before)
  local msgs = messages():sub(#before + 1)
  local n = msgs:match("Copied ([%d,]+) tokens")
  return n and tonumber((n:gsub(",", ""))), msgs
end

local function clear_registers()
  vim.fn.setreg('"', "")
  if vim.fn.has("clipboard") == 1 then
    vim.fn.setreg("+", "")
  end
end

local function copied()
  local text = vim.fn.getreg('"')
  if text == "" and vim.fn.has("clipboard") == 1 then
    text = vim.fn.getreg("+")
  end
  return text
end

-- copy_by clears the registers, runs act (something that copies a pack) and waits for a register
-- to fill; it says whether one did, the messages before act and the messages act added.
local function copy_by(act)
  clear_registers()
  local before = messages()
  act()
  local got = vim.wait(60000, function()
    return copied() ~= ""
  end, 50)
  return got, before, messages():sub(#before + 1)
end

local function run()
  must("CTXMAP_BIN, CTXMAP_WORKSPACE, CTXMAP_FILE, CTXMAP_WORD, CTXMAP_EXPECT are set", bin and workspace and file and word and expect)
  test_positions()
  test_summary()

  vim.cmd("cd " .. vim.fn.fnameescape(workspace))
  require("ctxmap").setup({ cmd = { bin, "serve", "--stdio" }, budget = budget })

  -- before any client runs, the health check starts a server of its own
  vim.cmd("checkhealth ctxmap")
  local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  check(":checkhealth ctxmap starts the server", report:find("OK[^\n]*server starts") ~= nil, report)
  check(":checkhealth ctxmap finds the root", report:find("OK[^\n]*root: ") ~= nil, report)
  vim.cmd("bwipeout!")

  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()

  must("client attaches", vim.wait(15000, function()
    return ctxmap_client(bufnr) ~= nil
  end, 50), messages())
  local c = ctxmap_client(bufnr)
  check("client is named ctxmap", c.name == "ctxmap", c.name)
  check("client root is the workspace", c.config.root_dir == vim.fn.resolve(workspace) or c.config.root_dir == workspace, c.config.root_dir)
  must("client initialized", vim.wait(15000, function()
    return c.initialized == true or (c.server_capabilities or c.resolved_capabilities) ~= nil
  end, 50))

  local ready, st = wait_ready(c)
  must("server reports ready", ready, vim.inspect(st))
  check("status counts files", type(st.files) == "number" and st.files > 0, vim.inspect(st))

  local row, col, line = find_comment(bufnr, word)
  must("the file has a comment mentioning " .. word, row ~= nil)

  -- hover on the word, as K would ask it
  local hover, why = hover_text(bufnr, row, require("ctxmap.position").col(line, col + 1, c.offset_encoding))
  save("hover.md", hover)
  check("hover answers Markdown", hover ~= nil and hover ~= "", why)
  check("hover has a file:// link", hover and hover:find("file://", 1, true) ~= nil, clip(hover or why, 600))

  if utf16_line then
    local r, cb, l = find_comment(bufnr, word, utf16_line)
    if check("the file has the UTF-16 test comment", r ~= nil) then
      local h, w = hover_text(bufnr, r, utf16(l, cb + 1))
      check("hover after a 4-byte character has a file:// link", h and h:find("file://", 1, true) ~= nil, clip(h or w, 600))
    end
  end

  -- K itself opens the hover in a floating window
  vim.api.nvim_win_set_cursor(0, { row + 1, col + 1 })
  local wins_before = #vim.api.nvim_list_wins()
  vim.cmd("normal K")
  local float
  vim.wait(15000, function()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= "" then
        float = w
        return true
      end
    end
    return false
  end, 50)
  if check("K opens a hover window", float ~= nil, string.format("%d windows before", wins_before)) then
    local text = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false), "\n")
    check("the hover window shows a link", text:find("file://", 1, true) ~= nil, clip(text, 400))
    vim.api.nvim_win_close(float, true)
  end

  -- :CtxmapCopy with the cursor in the comment: the server finds the comment
  vim.api.nvim_win_set_cursor(0, { row + 1, col })
  local got, before, said = copy_by(function()
    vim.cmd("CtxmapCopy")
  end)
  must(":CtxmapCopy fills a register", got, said)
  local pack = copied()
  save("pack.md", pack)
  local tokens, msgs = copied_tokens(before)
  check(":CtxmapCopy says how many tokens", tokens ~= nil, msgs)
  check("the pack is under the budget", tokens and tokens > 0 and tokens <= budget, tostring(tokens))
  check("the message counts the files shown", msgs:find("tokens: %d+ files?") ~= nil, msgs)
  check("the pack mentions " .. expect, pack:find(expect) ~= nil, clip(pack, 1500))

  -- :'<,'>CtxmapCopy on the comment's line, selected linewise
  vim.cmd(string.format("normal! %dGV\27", row + 1))
  got, before, said = copy_by(function()
    vim.cmd("'<,'>CtxmapCopy")
  end)
  check(":'<,'>CtxmapCopy fills a register", got, said)
  tokens = copied_tokens(before)
  check("the selection's pack is under the budget", tokens and tokens <= budget, tostring(tokens))

  -- a charwise selection of just the word
  vim.api.nvim_win_set_cursor(0, { row + 1, col })
  vim.cmd(string.format("normal! v%dl\27", #word - 1))
  got, _, said = copy_by(function()
    vim.cmd("'<,'>CtxmapCopy")
  end)
  check(":'<,'>CtxmapCopy on a charwise selection fills a register", got, said)

  -- the "Copy context for LLM" code lens above a TODO comment runs in the editor
  local todo = find_comment(bufnr, "TODO")
  if todo then
    local lensed = vim.wait(20000, function()
      pcall(vim.lsp.codelens.refresh, vim.fn.has("nvim-0.10") == 1 and { bufnr = bufnr } or nil)
      for _, l in ipairs(vim.lsp.codelens.get(bufnr) or {}) do
        if l.range.start.line == todo and l.command and l.command.command == "ctxmap.copyContext" then
          return true
        end
      end
      return false
    end, 500)
    if check("a code lens sits above the TODO comment", lensed) then
      vim.api.nvim_win_set_cursor(0, { todo + 1, 0 })
      got, before, said = copy_by(vim.lsp.codelens.run)
      check("running the lens fills a register", got, said)
      tokens = copied_tokens(before)
      check("the lens's pack is under the budget", tokens and tokens <= budget, tostring(tokens))
    end
  end

  -- with a clipboard provider (here one that keeps the clipboard in a file) the pack goes to +
  local clip_file = vim.fn.tempname()
  vim.g.clipboard = {
    name = "file",
    copy = { ["+"] = { "sh", "-c", "cat > " .. clip_file }, ["*"] = { "sh", "-c", "cat > " .. clip_file } },
    paste = { ["+"] = { "cat", clip_file }, ["*"] = { "cat", clip_file } },
  }
  vim.g.loaded_clipboard_provider = nil
  vim.cmd("runtime autoload/provider/clipboard.vim")
  if check("the file clipboard provider loads", vim.fn.has("clipboard") == 1) then
    vim.fn.setreg('"', "")
    vim.api.nvim_win_set_cursor(0, { row + 1, col })
    before = messages()
    vim.cmd("CtxmapCopy")
    vim.wait(60000, function()
      return vim.fn.filereadable(clip_file) == 1 and vim.fn.getfsize(clip_file) > 0
    end, 50)
    local in_clipboard = table.concat(vim.fn.readfile(clip_file), "\n")
    check(":CtxmapCopy puts the pack on the clipboard", in_clipboard:find(expect) ~= nil, clip(in_clipboard, 300))
    check("the clipboard copy does not mention the unnamed register", messages():sub(#before + 1):find("unnamed") == nil, messages():sub(#before + 1))
  end
  vim.g.clipboard = nil

  -- an issue pasted into a scratch buffer is sent as text to the project's server
  vim.cmd("enew")
  vim.bo.buftype = "nofile"
  local scratch = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, { "Bug report:", "", line:gsub("^%s*[/#]+%s*", ""), "" })
  vim.api.nvim_win_set_cursor(0, { 3, 0 })
  check("a scratch buffer gets no client of its own", ctxmap_client(scratch) == nil)
  got, _, said = copy_by(function()
    vim.cmd("CtxmapCopy")
  end)
  check(":CtxmapCopy in a scratch buffer fills a register", got, said)
  check("the scratch buffer's pack is about its text", copied():find(expect) ~= nil, clip(copied(), 600))
  vim.cmd("bwipeout!")
  vim.cmd("buffer " .. bufnr)

  -- a file outside any project is left alone
  local outside = vim.fn.tempname() .. ".go"
  vim.fn.writefile({ "package outside" }, outside)
  vim.cmd("edit " .. vim.fn.fnameescape(outside))
  vim.wait(500)
  check("a file outside any project gets no client", ctxmap_client(vim.api.nvim_get_current_buf()) == nil)
  vim.cmd("bwipeout!")
  vim.cmd("buffer " .. bufnr)

  -- :CtxmapShow opens the pack in a scratch Markdown buffer
  vim.api.nvim_win_set_cursor(0, { row + 1, col })
  local shown
  require("ctxmap").show({}, function(_, buf)
    shown = buf
  end)
  vim.wait(60000, function()
    return shown ~= nil
  end, 50)
  if check(":CtxmapShow opens a buffer", shown ~= nil, messages()) then
    local text = table.concat(vim.api.nvim_buf_get_lines(shown, 0, -1, false), "\n")
    check("the shown buffer is Markdown", vim.bo[shown].filetype == "markdown", vim.bo[shown].filetype)
    check("the shown buffer is a scratch buffer", vim.bo[shown].buftype == "nofile")
    check("the shown buffer holds the pack", text:find(expect) ~= nil, clip(text, 600))
    vim.cmd("close")
  end
  vim.cmd("buffer " .. bufnr)

  -- :CtxmapExplore: completion over entities, then the quickfix list
  local names = vim.fn.getcompletion("CtxmapExplore ", "cmdline")
  check(":CtxmapExplore completes entity names", #names > 0)
  local entity
  for _, n in ipairs(names) do
    if n:lower() == word:lower() then
      entity = n
    end
  end
  check("the entities include " .. word:upper(), entity ~= nil, table.concat(names, " "))
  local narrowed = vim.fn.getcompletion("CtxmapExplore " .. word:sub(1, 2), "cmdline")
  check("completion narrows by prefix", #narrowed > 0 and #narrowed <= #names)
  vim.fn.setqflist({}, "r", { items = {} })
  vim.cmd("CtxmapExplore " .. (entity or word))
  vim.wait(30000, function()
    return #vim.fn.getqflist() > 0
  end, 50)
  local qf = vim.fn.getqflist()
  if check(":CtxmapExplore fills the quickfix list", #qf > 0, messages()) then
    local name = vim.api.nvim_buf_get_name(qf[1].bufnr)
    check("quickfix entries point at workspace files", (vim.uv or vim.loop).fs_stat(name) ~= nil and qf[1].lnum >= 1, name)
    check("quickfix title names the entity", vim.fn.getqflist({ title = 1 }).title:find("ctxmap", 1, true) ~= nil)
  end
  vim.cmd("cclose")

  -- :CtxmapStatus
  before = messages()
  vim.cmd("CtxmapStatus")
  vim.wait(10000, function()
    return messages():sub(#before + 1):find("files") ~= nil
  end, 50)
  check(":CtxmapStatus reports counts", messages():sub(#before + 1):find("ready; [%d,]+ files") ~= nil, messages():sub(#before + 1))
  check(":CtxmapStatus names the vectors' model", messages():sub(#before + 1):find("; vectors %S") ~= nil, messages():sub(#before + 1))

  -- :CtxmapMap writes the page and hands it to the opener
  local opened
  require("ctxmap").config.opener = function(path)
    opened = path
  end
  vim.cmd("CtxmapMap")
  vim.wait(30000, function()
    return opened ~= nil
  end, 50)
  if check(":CtxmapMap opens a page", opened ~= nil, messages()) then
    local f = io.open(opened, "r")
    local page = f and f:read("*a") or ""
    if f then
      f:close()
    end
    check(":CtxmapMap's page is the entity map", page:find("<!DOCTYPE html>", 1, true) ~= nil and page:find('data-name="' .. word:upper() .. '"', 1, true) ~= nil, clip(page, 300))
  end

  -- :checkhealth ctxmap
  vim.cmd("checkhealth ctxmap")
  report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  check(":checkhealth ctxmap finds the binary", report:find("OK[^\n]*binary: ") ~= nil, report)
  check(":checkhealth ctxmap reads the version", report:find("OK[^\n]*version: ctxmap") ~= nil, report)
  check(":checkhealth ctxmap sees the running server", report:find("OK[^\n]*server running") ~= nil, report)
  check(":checkhealth ctxmap reports no error", report:find("ERROR") == nil, report)
  vim.cmd("bwipeout!")
end

local ok, err = xpcall(run, debug.traceback)
if not ok then
  failures = failures + 1
  log("FAIL %s", err)
end
if failures > 0 then
  log("%d check(s) failed", failures)
  vim.cmd("cquit! 1")
else
  log("all checks passed")
  vim.cmd("qall!")
end

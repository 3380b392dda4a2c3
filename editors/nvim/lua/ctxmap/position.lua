-- LSP positions: 0-based lines, columns in the client's offset encoding (UTF-16 unless the server
-- negotiated another). Neovim gives byte columns; the conversion is done here, once, for every request.
local M = {}

-- The length in bytes of the UTF-8 character whose first byte is c.
local function char_len(c)
  if c >= 0xF0 then
    return 4
  elseif c >= 0xE0 then
    return 3
  elseif c >= 0xC0 then
    return 2
  end
  return 1
end

-- col converts a 0-based byte offset in line to a column in encoding ("utf-8", "utf-16", "utf-32").
-- An offset past the end of the line is the end of the line.
function M.col(line, byte, encoding)
  byte = math.max(0, math.min(byte, #line))
  if encoding == "utf-8" then
    return byte
  end
  local units, i = 0, 1
  while i <= byte do
    local len = char_len(line:byte(i))
    if len == 4 and encoding ~= "utf-32" then
      units = units + 2 -- a surrogate pair
    else
      units = units + 1
    end
    i = i + len
  end
  return units
end

-- char_end is the byte offset just after the character that starts at byte (0-based): the exclusive end
-- of a selection whose last character is there.
function M.char_end(line, byte)
  if byte >= #line then
    return #line
  end
  return math.min(#line, byte + char_len(line:byte(byte + 1)))
end

local function line_of(bufnr, row)
  return vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ""
end

-- cursor is the LSP position of the cursor in window win.
function M.cursor(win, encoding)
  local bufnr = vim.api.nvim_win_get_buf(win)
  local pos = vim.api.nvim_win_get_cursor(win)
  local row = pos[1] - 1
  return { line = row, character = M.col(line_of(bufnr, row), pos[2], encoding) }
end

-- range is the LSP range of a selection given as 0-based rows and byte columns, the end column being
-- the first byte of the last selected character (as marks give it); nil columns mean whole lines.
function M.range(bufnr, srow, scol, erow, ecol, encoding)
  local first, last = line_of(bufnr, srow), line_of(bufnr, erow)
  local start_byte = scol or 0
  local end_byte = ecol and M.char_end(last, ecol) or #last
  return {
    start = { line = srow, character = M.col(first, start_byte, encoding) },
    ["end"] = { line = erow, character = M.col(last, end_byte, encoding) },
  }
end

return M

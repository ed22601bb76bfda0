-- Headless Neovim (0.7.x) as a real LSP client of `chunkseam server`.
--
-- Environment: CS_FILE (the Markdown file to open), CS_PYTHON (the interpreter
-- with chunkseam installed), CS_SETTINGS (JSON initialization settings),
-- CS_HOVER_LINE / CS_HOVER_COL (0-based position to hover).
-- Prints one line per result: "<kind>\t<json>"; exits 0 on success, 1 on failure.

local function emit(kind, value)
  io.stdout:write(kind .. "\t" .. vim.fn.json_encode(value) .. "\n")
end

local function fail(message)
  emit("error", message)
  io.stdout:flush()
  vim.cmd("cquit 1")
end

local file = os.getenv("CS_FILE")
local python = os.getenv("CS_PYTHON")
local settings = vim.fn.json_decode(os.getenv("CS_SETTINGS") or "{}")
local hover_line = tonumber(os.getenv("CS_HOVER_LINE") or "0")
local hover_col = tonumber(os.getenv("CS_HOVER_COL") or "0")

vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()

local client_id = vim.lsp.start_client({
  name = "chunkseam",
  cmd = { python, "-m", "chunkseam", "server" },
  root_dir = vim.fn.fnamemodify(file, ":p:h"),
  init_options = { settings = settings },
  on_exit = function(code, signal)
    emit("exit", { code = code, signal = signal })
  end,
})
if not client_id then
  fail("could not start the server")
end
vim.lsp.buf_attach_client(buf, client_id)

local ok = vim.wait(60000, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)
if not ok then
  fail("no diagnostics within 60 s")
end

for _, d in ipairs(vim.diagnostic.get(buf)) do
  emit("diagnostic", {
    lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
    code = d.code, severity = d.severity, source = d.source, message = d.message,
  })
end

local client = vim.lsp.get_client_by_id(client_id)
emit("encoding", client.offset_encoding or "")

local uri = vim.uri_from_bufnr(buf)
local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover", {
  textDocument = { uri = uri },
  position = { line = hover_line, character = hover_col },
}, 30000)
if not hover or not hover[client_id] or hover[client_id].err or not hover[client_id].result then
  fail("no hover: " .. vim.inspect(hover))
end
emit("hover", hover[client_id].result)

local lenses = vim.lsp.buf_request_sync(buf, "textDocument/codeLens", {
  textDocument = { uri = uri },
}, 30000)
if not lenses or not lenses[client_id] or lenses[client_id].err then
  fail("no code lenses: " .. vim.inspect(lenses))
end
for _, lens in ipairs(lenses[client_id].result or {}) do
  emit("codelens", lens)
end

-- Neovim's own code-lens machinery over the same server
vim.lsp.codelens.refresh()
local got = vim.wait(30000, function()
  return #vim.lsp.codelens.get(buf) > 0
end, 50)
emit("codelens_count", got and #vim.lsp.codelens.get(buf) or 0)

-- running a lens shows its chunk (this Neovim has no window/showDocument: a message)
local shown = nil
local show_message = vim.lsp.handlers["window/showMessage"]
vim.lsp.handlers["window/showMessage"] = function(err, result, ctx, config)
  shown = result and result.message
  return show_message(err, result, ctx, config)
end
local second = vim.lsp.codelens.get(buf)[2]
if second then
  vim.api.nvim_win_set_cursor(0, { second.range.start.line + 1, 0 })
  vim.lsp.codelens.run()
  vim.wait(30000, function()
    return shown ~= nil
  end, 50)
  emit("lens_run", { title = second.command and second.command.title or "", shown = shown or "" })
end

vim.lsp.stop_client(client_id)
vim.wait(5000, function()
  return vim.lsp.get_client_by_id(client_id) == nil
end, 50)
io.stdout:flush()
vim.cmd("qa!")

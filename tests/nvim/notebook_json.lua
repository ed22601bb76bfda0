-- Headless Neovim (0.7.x), which has no notebook documents, opens a Jupyter
-- notebook's JSON with `chunkseam server` attached: what the server sends.
--
-- Environment: CS_FILE (the .ipynb), CS_PYTHON, CS_SETTINGS (JSON settings).
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
local settings = vim.fn.json_decode(os.getenv("CS_SETTINGS") or "{}")

vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
emit("filetype", vim.bo[buf].filetype)

local messages = {}
local published = nil
local show_message = vim.lsp.handlers["window/showMessage"]
vim.lsp.handlers["window/showMessage"] = function(err, result, ctx, config)
  table.insert(messages, result and result.message or "")
  return show_message(err, result, ctx, config)
end
local publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
  if result and result.uri == vim.uri_from_bufnr(buf) then
    published = #result.diagnostics
  end
  return publish(err, result, ctx, config)
end

local exited = nil
local client_id = vim.lsp.start_client({
  name = "chunkseam",
  cmd = { os.getenv("CS_PYTHON"), "-m", "chunkseam", "server" },
  root_dir = vim.fn.fnamemodify(file, ":p:h"),
  init_options = { settings = settings },
  on_exit = function(code, signal)
    exited = { code = code, signal = signal }
  end,
})
if not client_id then
  fail("could not start the server")
end
vim.lsp.buf_attach_client(buf, client_id)

-- the server's answer for the JSON: a message and an (empty) diagnostics list
vim.wait(60000, function()
  return #messages > 0 and published ~= nil
end, 50)
for _, m in ipairs(messages) do
  emit("message", m)
end
emit("published", published == nil and vim.NIL or published)

-- it keeps answering: a hover and the code lenses of the JSON
local uri = vim.uri_from_bufnr(buf)
local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover", {
  textDocument = { uri = uri }, position = { line = 3, character = 4 },
}, 30000)
local h = hover and hover[client_id]
emit("hover", { answered = h ~= nil, err = h and h.err and h.err.message or vim.NIL, result = h and h.result or vim.NIL })
local lenses = vim.lsp.buf_request_sync(buf, "textDocument/codeLens", { textDocument = { uri = uri } }, 30000)
local l = lenses and lenses[client_id]
emit("codelens", { answered = l ~= nil, err = l and l.err and l.err.message or vim.NIL, count = l and l.result and #l.result or 0 })
emit("running", exited == nil and vim.lsp.get_client_by_id(client_id) ~= nil)

vim.lsp.stop_client(client_id)
vim.wait(5000, function()
  return vim.lsp.get_client_by_id(client_id) == nil
end, 50)
io.stdout:flush()
vim.cmd("qa!")

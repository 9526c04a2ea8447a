-- Neovim's own LSP client, as a user's configuration drives it, for
-- tests/editor.bats: nvim --headless --clean -i NONE -c "luafile THIS".
--
-- NVLSP_SPEC names a JSON list of servers, each {name, root, file, line,
-- col, expect, cmd}: the client is started with cmd (the editor's own pid
-- goes in initialize, as Neovim always sends it), FILE (relative to ROOT)
-- is opened and attached, and go-to-definition is asked at LINE:COL
-- (0-based) until it answers.  After NVLSP_SECONDS (60), one JSON object
-- goes to NVLSP_OUT, by server name: the diagnostics published, the file
-- the definition is in, whether the client is still running and the pid
-- of the process it started; NVLSP_OUT.done follows, and nvim waits to be
-- killed.
local spec = vim.json.decode(table.concat(
  vim.fn.readfile(os.getenv("NVLSP_SPEC")), "\n"))
local seconds = tonumber(os.getenv("NVLSP_SECONDS") or "60")
local out = os.getenv("NVLSP_OUT")
local results, by_id = {}, {}

vim.lsp.handlers["textDocument/publishDiagnostics"] =
  function(_, result, ctx)
    local r = by_id[ctx.client_id]
    if r and result and #result.diagnostics > 0 then
      r.diagnostics = r.diagnostics + #result.diagnostics
    end
  end

for _, s in ipairs(spec) do
  local r = { diagnostics = 0, exited = vim.NIL }
  results[s.name] = r
  vim.cmd("edit " .. vim.fn.fnameescape(s.root .. "/" .. s.file))
  r.buf = vim.api.nvim_get_current_buf()
  r.id = vim.lsp.start_client({
    name = s.name,
    cmd = s.cmd,
    root_dir = s.root,
    on_exit = function(code) r.exited = code end,
  })
  by_id[r.id] = r
  vim.lsp.buf_attach_client(r.buf, r.id)
end

local function ask(s, r, c)
  r.pending = true
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(r.buf) },
    position = { line = s.line, character = s.col },
  }
  c.request("textDocument/definition", params, function(err, result)
    r.pending = false
    if err or result == nil then return end
    local loc = result[1] or result
    local uri = loc.uri or loc.targetUri
    if uri then r.definition = vim.uri_to_fname(uri) end
  end, r.buf)
end

local deadline = vim.loop.now() + seconds * 1000
while vim.loop.now() < deadline do
  for _, s in ipairs(spec) do
    local r = results[s.name]
    local c = vim.lsp.get_client_by_id(r.id)
    if c and c.initialized and not r.definition and not r.pending then
      ask(s, r, c)
    end
  end
  vim.wait(500)
end

for _, s in ipairs(spec) do
  local r = results[s.name]
  local c = vim.lsp.get_client_by_id(r.id)
  r.alive = c ~= nil and not c.is_stopped()
  r.pid = c and c.rpc and c.rpc.pid or vim.NIL
  r.definition = r.definition or vim.NIL
  r.pending, r.buf, r.id = nil, nil, nil
end
vim.fn.writefile({ vim.json.encode(results) }, out)
vim.fn.writefile({ "done" }, out .. ".done")
while true do vim.wait(1000) end

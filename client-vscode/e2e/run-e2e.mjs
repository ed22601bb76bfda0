#!/usr/bin/env node
// End-to-end test of the chunkseam extension in the real VS Code workbench:
// code-server (VS Code 1.100 served locally) driven by Debian's headless
// Chromium through playwright-core.
//
//   node e2e/run-e2e.mjs --vsix chunkseam-0.1.0.vsix --python /path/to/python \
//        [--code-server-dir DIR] [--artifacts DIR] [--keep]
//
// E2E_ONLY=big in the environment runs only the 1 MB document's checks.
//
// --python is an interpreter that has chunkseam installed (the server runs as
// `python -m chunkseam server`); --code-server-dir is what
// scripts/install-code-server.sh printed. Every check is reported; the last
// line is "N passed, N failed" and the exit code is 1 if any check failed.
// Screenshots go to the artifacts directory (default ../test-artifacts/vscode).

import { execFileSync, spawn } from "node:child_process";
import { createRequire } from "node:module";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = path.dirname(fileURLToPath(import.meta.url));
const extRoot = path.resolve(here, "..");
const repoRoot = path.resolve(extRoot, "..");

const { values: opts } = parseArgs({
  options: {
    vsix: { type: "string" },
    python: { type: "string", default: process.env.CHUNKSEAM_PYTHON },
    "code-server-dir": { type: "string", default: process.env.CHUNKSEAM_E2E_CACHE },
    artifacts: { type: "string", default: path.join(repoRoot, "test-artifacts", "vscode") },
    chromium: { type: "string", default: process.env.CHROMIUM || "/usr/bin/chromium" },
    keep: { type: "boolean", default: false },
    // copy the README screenshots to media/ (after looking at them)
    "update-media": { type: "boolean", default: false },
    timeout: { type: "string", default: "30000" },
    theme: { type: "string", default: "Default Dark Modern" },
  },
});

const pkg = JSON.parse(fs.readFileSync(path.join(extRoot, "package.json"), "utf8"));
const vsix = path.resolve(opts.vsix ?? path.join(extRoot, `chunkseam-${pkg.version}.vsix`));
const csDir = opts["code-server-dir"] ?? path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "chunkseam", "e2e");
const codeServer = path.join(csDir, "node_modules", ".bin", "code-server");
const WAIT = Number(opts.timeout);
const artifacts = path.resolve(opts.artifacts);

function fatal(message) {
  console.error(`e2e: ${message}`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}

if (!opts.python) {
  fatal("--python (an interpreter with chunkseam installed) is required");
}
for (const [what, file] of [
  ["the .vsix", vsix],
  ["code-server (run scripts/install-code-server.sh)", codeServer],
  ["chromium", opts.chromium],
]) {
  if (!fs.existsSync(file)) {
    fatal(`${what} not found at ${file}`);
  }
}

const requireFromCache = createRequire(path.join(csDir, "package.json"));
const { chromium } = requireFromCache("playwright-core");

const t0 = Date.now();
const log = (msg) => console.error(`[e2e ${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);

// -- temp dirs, workspace, settings ------------------------------------------------------------
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "chunkseam-e2e-"));
const dirs = Object.fromEntries(
  ["home", "user-data", "extensions", "browser", "workspace", "xdg-config", "xdg-data", "xdg-cache", "xdg-state"].map((d) => {
    const p = path.join(tmp, d);
    fs.mkdirSync(p, { recursive: true });
    return [d, p];
  }),
);
fs.mkdirSync(artifacts, { recursive: true });
const workspace = dirs.workspace;
for (const name of ["guide.md", "retry.ts", "install.rst", "tabs.mdx", "retrieval.ipynb"]) {
  fs.copyFileSync(path.join(here, "fixture", name), path.join(workspace, name));
}
fs.mkdirSync(path.join(workspace, ".vscode"));
// An untrusted repository's modules that shadow chunkseam and what it imports:
// opening the folder must never import them (each would leave a marker).
const shadowMarker = path.join(tmp, "shadow-modules-imported");
for (const mod of ["chunkseam", "tiktoken", "markdown_it"]) {
  fs.writeFileSync(
    path.join(workspace, `${mod}.py`),
    `# a module of the opened folder: it must never be imported\nopen(${JSON.stringify(shadowMarker)}, "a").write(${JSON.stringify(`${mod}\n`)})\n`,
  );
}
// The extension host takes its environment from a login shell, which resets
// PATH (/etc/profile): put the Python's bin directory on it in ~/.profile.
fs.writeFileSync(
  path.join(dirs.home, ".profile"),
  `PATH=${JSON.stringify(path.dirname(opts.python))}:"$PATH"\nexport PATH\n`,
);
const shadowImported = () => (fs.existsSync(shadowMarker) ? fs.readFileSync(shadowMarker, "utf8").trim().split("\n") : []);

const settings = {
  // the extension under test
  "chunkseam.interpreter": opts.python,
  "chunkseam.chunker": "recursive",
  "chunkseam.size": 44,
  "chunkseam.ignore": ["CS104"],
  "chunkseam.unit": "tokens",
  "chunkseam.debounceMs": 100,
  "chunkseam.trace.server": "messages",
  // a quiet, deterministic workbench
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "workbench.colorTheme": opts.theme,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "extensions.ignoreRecommendations": true,
  "git.enabled": false,
  "chat.commandCenter.enabled": false,
  "chat.disableAIFeatures": true,
  "editor.minimap.enabled": false,
  "editor.codeLens": true,
  "editor.hover.delay": 200,
  "editor.fontSize": 14,
  "editor.wordWrap": "on",
  "markdown.validate.enabled": false,
  // the squiggles of the TypeScript file are chunkseam's alone
  "typescript.validate.enable": false,
  // the shadow modules stay on disk (where Python would find them) but out of the screenshots
  "files.exclude": { "chunkseam.py": true, "tiktoken.py": true, "markdown_it.py": true },
  "window.commandCenter": false,
  "workbench.layoutControl.enabled": false,
};
fs.mkdirSync(path.join(dirs["user-data"], "User"), { recursive: true });
const userSettingsFile = path.join(dirs["user-data"], "User", "settings.json");
const writeUserSettings = (changes) => {
  const current = JSON.parse(fs.readFileSync(userSettingsFile, "utf8"));
  const kept = Object.fromEntries(Object.entries({ ...current, ...changes }).filter(([, v]) => v !== null));
  fs.writeFileSync(userSettingsFile, JSON.stringify(kept, null, 2));
};
fs.writeFileSync(userSettingsFile, JSON.stringify(settings, null, 2));
// The remote machine's settings (code-server is a remote window): empty for now.
fs.mkdirSync(path.join(dirs["user-data"], "Machine"), { recursive: true });
const machineSettingsFile = path.join(dirs["user-data"], "Machine", "settings.json");
fs.writeFileSync(machineSettingsFile, "{}\n");

const env = {
  ...process.env,
  // the Python's own bin directory first: its `chunkseam` console script is
  // what discovery finds on PATH when no interpreter is set
  PATH: `${path.dirname(opts.python)}${path.delimiter}${process.env.PATH ?? ""}`,
  HOME: dirs.home,
  XDG_CONFIG_HOME: dirs["xdg-config"],
  XDG_DATA_HOME: dirs["xdg-data"],
  XDG_CACHE_HOME: dirs["xdg-cache"],
  XDG_STATE_HOME: dirs["xdg-state"],
  EXTENSIONS_GALLERY: JSON.stringify({ serviceUrl: "http://127.0.0.1:9/gallery", itemUrl: "http://127.0.0.1:9/item" }),
  VSCODE_CLI_DISABLE_KEYCHAIN_ENCRYPT: "1",
};
delete env.VSCODE_IPC_HOOK_CLI;
delete env.VSCODE_NLS_CONFIG;

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// -- checks --------------------------------------------------------------------------------------
const results = [];
let page;
let shotNo = 0;
/** name -> file of the screenshots taken. */
const shots = new Map();
/** Screenshots used by the README: artifact name -> media file. */
const MEDIA = {
  editor: "editor.png",
  hover: "hover.png",
  "quick-fix-menu": "quick-fix.png",
  "config-error": "config-error.png",
  "notebook-bands": "notebook.png",
  "settings-view": "settings-view.png",
  "settings-tooltip": "settings-tooltip.png",
};

async function screenshot(name) {
  if (!page) {
    return undefined;
  }
  const file = path.join(artifacts, `${String(++shotNo).padStart(2, "0")}-${name}.png`);
  try {
    await page.screenshot({ path: file });
    shots.set(name, file);
    return file;
  } catch (e) {
    log(`screenshot ${name} failed: ${e.message}`);
    return undefined;
  }
}

// E2E_ONLY=big: only the checks of the 1 MB document (after guide.md is open
// and its squiggles are there, so the server is running), to iterate on them.
// Unset: every check.
const ONLY = process.env.E2E_ONLY || "";
if (ONLY && ONLY !== "big") {
  fatal(`E2E_ONLY=${ONLY}: only "big" is known`);
}
const BIG_CHECKS = [/^open guide\.md/, /^squiggles under the bad cuts/, /1 MB document/, /maxDiagnostics/, /^still no module/, /^no noise in the logs/];

async function check(name, fn) {
  if (ONLY === "big" && !BIG_CHECKS.some((re) => re.test(name))) {
    return true;
  }
  const started = Date.now();
  try {
    const detail = await fn();
    results.push({ name, ok: true });
    log(`PASS ${name}${detail ? `: ${detail}` : ""} (${Date.now() - started} ms)`);
    return true;
  } catch (e) {
    results.push({ name, ok: false, error: e });
    log(`FAIL ${name}: ${e && e.message ? e.message.split("\n")[0] : String(e)}`);
    await screenshot(`FAILED-${name.replace(/[^a-z0-9]+/gi, "-")}`);
    return false;
  }
}

function assert(cond, message) {
  if (!cond) {
    throw new Error(message);
  }
}

/** Poll `fn` (in Node) until it returns a truthy value or the time runs out. */
async function waitFor(what, fn, timeout = WAIT, every = 200) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) {
        return last;
      }
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${last instanceof Error ? ` (${last.message})` : ""}`);
    }
    await new Promise((r) => setTimeout(r, every));
  }
}

/** Text of every element matching `selector`. */
function texts(selector) {
  return page.$$eval(selector, (els) => els.map((e) => e.textContent || ""));
}

/** Focus the guide.md editor (click into its text) and go to the top. */
async function focusEditor() {
  const line = page.locator(".editor-instance .monaco-editor .view-line").first();
  const box = await line.boundingBox();
  assert(box, "no editor line on screen");
  await page.mouse.click(box.x + 2, box.y + box.height / 2);
  await page.keyboard.press("Control+Home");
}

/** Close the editor tab whose title contains `title`. */
async function closeTab(title) {
  const tab = page.locator(".tabs-container .tab", { hasText: title }).first();
  if ((await tab.count()) === 0) {
    return;
  }
  await tab.click();
  await tab.locator(".tab-actions .action-label").first().click();
  await waitFor(`tab "${title}" closed`, async () => (await page.locator(".tabs-container .tab", { hasText: title }).count()) === 0, 10_000);
}

async function runCommand(title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: WAIT });
  await input.fill(`>${title}`);
  await page.waitForTimeout(300);
  // Enter once the command is the focused row: on a busy machine the list can
  // still show the recently used commands 300 ms on (Enter ran another one)
  await page
    .locator(".quick-input-list .monaco-list-row.focused", { hasText: title })
    .first()
    .waitFor({ timeout: 10_000 })
    .catch(() => undefined);
  await page.keyboard.press("Enter");
}

// -- run -------------------------------------------------------------------------------------------
let server;
let context;
try {
  log(`installing ${path.basename(vsix)} into a fresh code-server`);
  execFileSync(
    codeServer,
    ["--install-extension", vsix, "--extensions-dir", dirs.extensions, "--user-data-dir", dirs["user-data"], "--force"],
    { env, stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 },
  );
  const installed = fs.readdirSync(dirs.extensions).filter((d) => d.startsWith("chunkseam."));
  assert(installed.length === 1, `extension not installed: ${fs.readdirSync(dirs.extensions).join(", ")}`);

  const port = await freePort();
  const config = path.join(tmp, "code-server.yaml");
  fs.writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const serverLog = fs.openSync(path.join(artifacts, "code-server.log"), "w");
  server = spawn(
    codeServer,
    [
      "--config", config,
      "--user-data-dir", dirs["user-data"],
      "--extensions-dir", dirs.extensions,
      "--auth", "none",
      "--bind-addr", `127.0.0.1:${port}`,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      workspace,
    ],
    { env, detached: true, stdio: ["ignore", serverLog, serverLog] },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitFor("code-server /healthz", async () => (await fetch(`${base}/healthz`)).ok, 60_000, 250);
  log(`code-server is up on ${base}`);

  context = await chromium.launchPersistentContext(dirs.browser, {
    executablePath: opts.chromium,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (["127.0.0.1", "localhost"].includes(url.hostname) || url.protocol === "data:" || url.protocol === "blob:") {
      return route.continue();
    }
    return route.abort();
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  await page.goto(`${base}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
  log("workbench loaded");

  await check("open guide.md from the explorer", async () => {
    const row = page.locator(".explorer-folders-view .monaco-list-row", { hasText: "guide.md" });
    await row.first().waitFor({ timeout: WAIT });
    await row.first().click();
    await page.locator(".monaco-editor .view-lines", { hasText: "Deploying the service" }).first().waitFor({ timeout: WAIT });
  });

  await check("squiggles under the bad cuts", async () => {
    const n = await waitFor("squiggles", async () => {
      const count = await page.locator(".monaco-editor .squiggly-warning, .monaco-editor .squiggly-error").count();
      return count > 0 ? count : 0;
    });
    return `${n} squiggles`;
  });

  await check("no module of the opened folder was imported (chunkseam.py, tiktoken.py, markdown_it.py)", async () => {
    const imported = shadowImported();
    assert(imported.length === 0, `imported from the workspace: ${imported.join(", ")}`);
    return "diagnostics arrived and no shadow module ran";
  });

  await check("code lenses with the chunk's token count", async () => {
    const lenses = await waitFor("code lenses", async () => {
      const t = await texts(".monaco-editor .codelens-decoration");
      return t.some((x) => /Chunk 1\/\d+ · \d+ tokens?/.test(x)) ? t : undefined;
    });
    // the important part first (an editor cuts a long lens off at its end): the
    // issue count, then the chunk; the innermost heading last; short
    // (lenses on one line are one element, joined by " | " with non-breaking spaces)
    const each = lenses.join(" | ").split(/\s+\|\s+/).map((x) => x.trim()).filter(Boolean);
    const withIssues = each.filter((x) => /\bissues?\b/.test(x));
    assert(withIssues.length > 0, `no lens with an issue: ${each.join(" | ")}`);
    for (const x of withIssues) {
      assert(/^\d+ issues? · Chunk \d+\/\d+ · \d+ tokens?\b/.test(x), `the issue count is not first: "${x}"`);
    }
    for (const x of each) {
      assert(!x.includes("›") && x.length <= 72, `a long lens: "${x}" (${x.length} characters)`);
    }
    return lenses.filter(Boolean).slice(0, 2).join(" | ");
  });

  const bandInfo = () =>
    page.evaluate(() => {
      const editor = document.querySelector(".monaco-editor");
      if (!editor) {
        return { bands: 0, labels: 0, injected: 0, widths: 0 };
      }
      // Bands: range decorations in the view overlays with a background colour.
      let bands = 0;
      for (const el of editor.querySelectorAll(".view-overlays .cdr, .view-overlays [class*='ced-']")) {
        const bg = getComputedStyle(el).backgroundColor;
        if (bg && bg !== "rgba(0, 0, 0, 0)" && bg !== "transparent") {
          bands++;
        }
      }
      // Cut markers: an empty ::before taken out of the flow (a thin tick).
      // Text injected into the line ("⧉N", as before) is counted apart: it
      // moves text and breaks word wrap and column alignment.
      let labels = 0;
      let injected = 0;
      let widths = 0;
      for (const el of editor.querySelectorAll(".view-lines span")) {
        const before = getComputedStyle(el, "::before");
        const content = before.content;
        if (content && content.includes("⧉")) {
          injected++;
        }
        if (el.children.length === 0 && (el.textContent || "").startsWith("⧉")) {
          injected++;
        }
        if (before.position === "absolute" && before.borderLeftWidth === "2px") {
          labels++;
          widths += el.getBoundingClientRect().width;
        }
      }
      return { bands, labels, injected, widths };
    });

  await check("chunk bands painted", async () => {
    const info = await waitFor("band decorations", async () => {
      const r = await bandInfo();
      return r.bands > 0 && r.labels > 0 ? r : undefined;
    });
    assert(info.injected === 0, `${info.injected} cut labels inject text into the line`);
    assert(info.widths === 0, `the cut markers take ${info.widths}px of the lines`);
    return `${info.bands} band pieces, ${info.labels} cut markers, 0 px of the lines, no injected text`;
  });

  const statusText = async () => (await texts(".statusbar .statusbar-item")).find((x) => /⧉ \d+ chunks? · \d+ broken \(\d+%\)/.test(x));
  let brokenBefore = -1;
  await check("status bar shows the chunk count and broken rate", async () => {
    const text = await waitFor("status bar item with broken chunks", async () => {
      const t = await statusText();
      return t && !/ 0 broken/.test(t) ? t : undefined;
    });
    brokenBefore = Number(/(\d+) broken/.exec(text)[1]);
    return text.trim();
  });

  await screenshot("editor");

  await check("Problems panel lists the rule codes", async () => {
    await focusEditor();
    await page.keyboard.press("Control+Shift+M");
    const rows = await waitFor("Problems rows for CS002 and CS003", async () => {
      const t = await texts(".markers-panel .monaco-list-row");
      return t.some((x) => x.includes("CS002")) && t.some((x) => x.includes("CS003")) ? t : undefined;
    });
    const codes = [...new Set(rows.join(" ").match(/CS\d{3}/g))].sort();
    return `${rows.length} rows: ${codes.join(", ")}`;
  });
  await screenshot("problems");

  await check("hover on a squiggle previews the chunk", async () => {
    const squiggle = page.locator(".monaco-editor .squiggly-warning").first();
    const box = await squiggle.boundingBox();
    assert(box, "no squiggle to hover");
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 - 4);
    const hover = page.locator(".monaco-hover:visible", { hasText: "Chunk" });
    await hover.first().waitFor({ timeout: WAIT });
    const text = await hover.first().textContent();
    assert(/\d+ tokens?/.test(text), `hover without a token count: ${text.slice(0, 200)}`);
    assert(/CS00\d/.test(text) || /mid-sentence|split/i.test(text), `hover without the issue: ${text.slice(0, 200)}`);
    // the issue and its fix before the chunk and its previews; the previews short
    const fix = text.indexOf("— fix:");
    const chunk = text.search(/Chunk \d+\/\d+ ·/);
    assert(fix >= 0 && fix < chunk, `the fix is not above the chunk: ${text.replace(/\s+/g, " ").slice(0, 300)}`);
    const height = Math.round((await hover.first().boundingBox())?.height ?? 0);
    return `${height} px: ${text.replace(/\s+/g, " ").slice(0, 100)}`;
  });
  await screenshot("hover");
  await page.keyboard.press("Escape");
  await page.mouse.move(5, 5);

  await check("clicking a code lens shows the chunk beside the editor", async () => {
    const lens = page.locator(".monaco-editor .codelens-decoration a", { hasText: "Chunk 2/" }).first();
    await lens.click();
    const tab = page.locator(".tabs-container .tab", { hasText: "chunk 2 of" }).first();
    await tab.waitFor({ timeout: WAIT });
    const editors = page.locator(".editor-instance .monaco-editor");
    await waitFor("two editors side by side", async () => (await editors.count()) >= 2);
    const title = (await tab.textContent()).trim();
    assert(/· \d+ tokens?/.test(title), `the title does not give the size in the configured unit: ${title}`);
    return title;
  });
  await screenshot("show-chunk");
  await closeTab("chunk 2 of");

  await check("preview command opens the chunk preview", async () => {
    await focusEditor();
    await runCommand("chunkseam: Preview Chunks of This Document");
    const frame = await waitFor("preview webview", async () => {
      for (const f of page.frames()) {
        const n = await f.locator("section.chunk").count().catch(() => 0);
        if (n > 0) {
          return f;
        }
      }
      return undefined;
    });
    const n = await frame.locator("section.chunk").count();
    const broken = await frame.locator("section.chunk.broken").count();
    assert(broken > 0, "no broken chunk in the preview");
    return `${n} chunk sections, ${broken} broken`;
  });
  await screenshot("preview");
  await closeTab("Chunks: guide.md");

  await check("compare strategies: quick pick, then the side-by-side report of the unsaved buffer", async () => {
    await focusEditor();
    // an unsaved edit: the comparison must see the buffer, not the file
    await page.keyboard.press("End");
    await page.keyboard.type(" Zanzibarite");
    await runCommand("chunkseam: Compare Chunking Strategies");
    const picks = page.locator(".quick-input-widget .monaco-list-row");
    await waitFor("the strategy quick pick", async () => (await picks.count()) >= 4);
    const labels = (await picks.allTextContents()).join(" ");
    assert(/fixed/.test(labels) && /recursive/.test(labels) && /langchain/.test(labels), `quick pick: ${labels.slice(0, 300)}`);
    await page.keyboard.press("Enter"); // the pre-selected strategies for Markdown
    const frame = await waitFor("compare webview", async () => {
      for (const f of page.frames()) {
        if ((await f.locator(".cs-compare, .cs-col").count().catch(() => 0)) > 0) {
          return f;
        }
      }
      return undefined;
    }, 60_000);
    const columns = await frame.locator("section.cs-col h2").allTextContents();
    assert(columns.length >= 2, `columns: ${columns.join(", ")}`);
    const body = await frame.locator("body").textContent();
    assert(body.includes("Zanzibarite"), "the report is not of the buffer's text");
    return columns.join(", ");
  });
  await screenshot("compare");
  await closeTab("Compare: guide.md");
  // back to the saved text
  await focusEditor();
  await page.keyboard.press("Control+z");
  await waitFor("the edit undone", async () => {
    if (!(await texts(".monaco-editor .view-lines")).join("").includes("Zanzibarite")) {
      return true;
    }
    await page.keyboard.press("Control+z");
    return false;
  }, 10_000);

  await check("toggle chunk bands off and on", async () => {
    await focusEditor();
    await runCommand("chunkseam: Toggle Chunk Bands");
    await waitFor("bands cleared", async () => (await bandInfo()).labels === 0);
    await runCommand("chunkseam: Toggle Chunk Bands");
    const info = await waitFor("bands back", async () => {
      const r = await bandInfo();
      return r.labels > 0 ? r : undefined;
    });
    return `${info.labels} cut labels again`;
  });

  await check('quick fix "Insert paragraph break" removes the mid-sentence diagnostic', async () => {
    const problemRows = async () => texts(".markers-panel .monaco-list-row");
    const before = (await problemRows()).filter((x) => x.includes("CS002")).length;
    assert(before > 0, "no CS002 row before the fix");
    // Put the cursor on the mid-sentence squiggle and open the quick fixes.
    const warn = page.locator(".monaco-editor .squiggly-warning");
    let target;
    for (let i = 0; i < (await warn.count()); i++) {
      const box = await warn.nth(i).boundingBox();
      if (box) {
        target = box;
        break;
      }
    }
    assert(target, "no warning squiggle on screen");
    await page.mouse.click(target.x + Math.min(4, target.width / 2), target.y + target.height / 2 - 4);
    await page.keyboard.press("Control+.");
    const item = page.locator(".action-widget .monaco-list-row", { hasText: "Insert paragraph break" }).first();
    await item.waitFor({ timeout: WAIT });
    await screenshot("quick-fix-menu");
    // Move the selection to the action and apply it with Enter (as a person would).
    const rows = page.locator(".action-widget .monaco-list-row");
    for (let i = 0; i < 10; i++) {
      const focused = await rows.evaluateAll((els) => {
        const f = els.find((e) => e.classList.contains("focused"));
        return f ? f.textContent || "" : "";
      });
      if (focused.includes("Insert paragraph break")) {
        break;
      }
      await page.keyboard.press("ArrowDown");
    }
    await page.keyboard.press("Enter");
    await waitFor("the CS002 row to go", async () => (await problemRows()).filter((x) => x.includes("CS002")).length < before);
    const after = await waitFor("status bar updated", async () => {
      const t = await statusText();
      const m = t && /(\d+) broken/.exec(t);
      return m && Number(m[1]) < brokenBefore ? t : undefined;
    });
    // The lenses follow the edit: chunk 2 now ends at the paragraph break, without an issue.
    const lens = await waitFor("the lens of chunk 2 to lose its issue", async () => {
      const t = await texts(".monaco-editor .codelens-decoration");
      const l = t.join(" | ").split(/\s+\|\s+/).find((x) => /^(\d+ issues? · )?Chunk 2\//.test(x));
      return l && !l.includes("issue") ? l : undefined;
    });
    return `CS002 rows ${before} -> ${(await problemRows()).filter((x) => x.includes("CS002")).length}; ${after.trim()}; ${lens}`;
  });
  await screenshot("after-quick-fix");

  // -- every kind the server analyses: code (TypeScript) and reStructuredText --------------------
  /** Open a file of the workspace from the explorer (Quick Open would cache its file list); wait for its tab. */
  async function openFile(name) {
    const row = page.locator(".explorer-folders-view .monaco-list-row", { hasText: name }).first();
    await row.waitFor({ timeout: WAIT });
    await row.click();
    await page.locator(".tabs-container .tab.active", { hasText: name }).waitFor({ timeout: WAIT });
  }

  /** Problems rows of one file only (the panel's filter, cleared after). */
  async function problemRowsOf(name, predicate) {
    await page.keyboard.press("Control+Shift+M");
    const filter = page.locator(".panel .viewpane-filter input, .markers-panel-container .viewpane-filter input").first();
    await filter.fill(`**/${name}`);
    try {
      return await waitFor(`the Problems rows of ${name}`, async () => {
        const t = await texts(".markers-panel .monaco-list-row");
        // the file's row, and none of another file
        return t.some((x) => x.includes(name)) && !t.some((x) => /\.(md|mdx|ts|rst|ipynb)\b/.test(x) && !x.includes(name)) && predicate(t) ? t : undefined;
      });
    } finally {
      await filter.fill("");
    }
  }

  const previewButton = () => page.locator('.editor-actions .action-label[aria-label*="Preview Chunks of This Document"]').first();

  /** The status bar's counts once they differ from `previous` (another document's). */
  const statusOtherThan = (previous) =>
    waitFor("the status bar for the new document", async () => {
      const t = await statusText();
      return t && t !== previous ? t : undefined;
    });

  /** Squiggles, a Problems row with `code`, code lenses that count the status bar's chunks. */
  async function analysedKind(name, code) {
    const before = await statusText();
    await openFile(name);
    const squiggles = await waitFor(`squiggles in ${name}`, async () => {
      const n = await page.locator(".monaco-editor .squiggly-warning, .monaco-editor .squiggly-error").count();
      return n > 0 ? n : 0;
    });
    const status = await statusOtherThan(before);
    const chunks = Number(/(\d+) chunks?/.exec(status)[1]);
    assert(!/ 0 broken/.test(status), `no broken chunk: ${status}`);
    const lenses = await waitFor(`code lenses of ${name}`, async () => {
      const all = await texts(".monaco-editor .codelens-decoration");
      return all.some((x) => new RegExp(`Chunk \\d+/${chunks} · \\d+ tokens?`).test(x) && /issue/.test(x)) ? all : undefined;
    });
    const lens = lenses.find((x) => /issue/.test(x)).trim();
    const rows = await problemRowsOf(name, (t) => t.some((x) => x.includes(code)));
    const row = rows.find((x) => x.includes(code));
    // the menus follow the same list of languages (a context key)
    await previewButton().waitFor({ timeout: WAIT });
    return `${squiggles} squiggles; ${status.trim()}; lens "${lens}"; ${row.replace(/\s+/g, " ").slice(0, 120)}`;
  }

  // Each file's status bar must replace the previous one's: the fixtures'
  // counts differ from one file to the next and from guide.md, the tab left open (5 chunks, 3
  // broken; 4, 1; 6, 2).
  await check("a TypeScript file: CS201 split-definition squiggles, Problems row, lenses, status bar", async () =>
    analysedKind("retry.ts", "CS201"),
  );
  await screenshot("typescript");
  await closeTab("retry.ts");
  await check("a reStructuredText file: CS003 in a code-block directive, Problems row, lenses, status bar", async () =>
    analysedKind("install.rst", "CS003"),
  );
  await screenshot("restructuredtext");
  await closeTab("install.rst");
  // VS Code has no MDX language of its own: the file opens as plain text, and the server goes by its suffix
  await check("an MDX file: CS008 for a cut inside a JSX element, Problems row, lenses, status bar", async () =>
    analysedKind("tabs.mdx", "CS008"),
  );
  await screenshot("mdx");
  await closeTab("tabs.mdx");

  // -- a Jupyter notebook: diagnostics in the cells (notebook sync; the cells' pull) ---------------
  const cellSquiggles = () =>
    page.$$eval(".notebook-editor .code-cell-row", (rows) =>
      rows.map((row) => ({
        // the editor renders spaces as no-break spaces
        text: ((row.querySelector(".view-lines") || { textContent: "" }).textContent || "").replace(/\u00a0/g, " "),
        squiggles: row.querySelectorAll(".squiggly-warning, .squiggly-error").length,
      })),
    );
  await check("a notebook: a squiggle in the code cell the cut splits, and a Problems row", async () => {
    await openFile("retrieval.ipynb");
    await page.locator(".notebook-editor .code-cell-row").first().waitFor({ timeout: WAIT });
    const cells = await waitFor("a squiggle in a cell", async () => {
      const c = await cellSquiggles();
      return c.some((x) => x.squiggles > 0) ? c : undefined;
    });
    const marked = cells.filter((x) => x.squiggles > 0);
    assert(marked.length === 1 && marked[0].text.includes("folder = Path("), `squiggles in cells: ${JSON.stringify(marked)}`);
    // the notebook's counts as soon as it is open, before any cell has focus
    const focused = await page.evaluate(() => !!document.activeElement?.closest(".cell-editor-container, .monaco-editor"));
    const status = await waitFor("the status bar for the notebook before a cell has focus", async () => {
      const t = await statusText();
      return t && /⧉ 3 chunks/.test(t) ? t : undefined;
    });
    const rows = await problemRowsOf("retrieval.ipynb", (t) => t.some((x) => x.includes("CS003")));
    const row = rows.find((x) => x.includes("CS003"));
    assert(/code cell 2/.test(row), `the Problems row does not name the cell: ${row}`);
    // every row of the notebook names its cell (the panel shows a line and column only)
    const chunkseamRows = rows.filter((x) => /chunkseam/.test(x) && /CS\d{3}/.test(x));
    const unnamed = chunkseamRows.filter((x) => !/^\s*cell \d+: /.test(x.replace(/^[^a-z]*/i, "")));
    assert(chunkseamRows.length > 0 && unnamed.length === 0, `Problems rows without their cell: ${unnamed.join(" | ")}`);
    // the commands are for text editors: no preview button on a notebook
    assert((await previewButton().count()) === 0, "a preview button in the notebook editor's title");
    return `${marked[0].squiggles} squiggles in the cell "${marked[0].text.slice(0, 24)}…"; status bar "${status.trim()}" (a cell editor focused: ${focused}); ${row.replace(/\s+/g, " ").slice(0, 140)}`;
  });
  await screenshot("notebook");

  await check("a notebook: hover on the cell's squiggle shows the issue and the chunk", async () => {
    const squiggle = page.locator(".notebook-editor .code-cell-row .squiggly-error, .notebook-editor .code-cell-row .squiggly-warning").last();
    const box = await squiggle.boundingBox();
    assert(box, "no squiggle in the cell to hover");
    await page.mouse.move(box.x + Math.min(20, box.width / 2), box.y + box.height / 2 - 4);
    const hover = page.locator(".monaco-hover:visible", { hasText: "CS003" });
    await hover.first().waitFor({ timeout: WAIT });
    const text = (await hover.first().textContent()).replace(/\s+/g, " ");
    assert(/\d+ tokens?/.test(text), `hover without a token count: ${text.slice(0, 200)}`);
    // in the cells' terms (not lines of the notebook's combined view), the cells' text without the view's fences
    const where = /Chunk \d+\/\d+ · \d+ tokens? · (cell \d+, lines? [\d–]+|cells \d+–\d+)/.exec(text);
    assert(where, `the hover does not say which cells the chunk is in: ${text.slice(0, 200)}`);
    assert(!text.includes("```"), `the hover shows the view's fence lines: ${text.slice(0, 400)}`);
    return `${where[1]}: ${text.slice(0, 120)}`;
  });
  await page.waitForTimeout(400); // the hover's fade-in, for the screenshot only
  await screenshot("notebook-hover");
  await page.keyboard.press("Escape");
  await page.mouse.move(5, 5);

  await check("a notebook: chunk bands in the code cell, the notebook's counts in the status bar", async () => {
    await page.locator(".notebook-editor .code-cell-row .view-line", { hasText: "folder = Path(" }).first().click();
    const bands = await waitFor("bands in the code cell", async () => {
      // as bandInfo: range decorations with a background colour (not the current line's highlight)
      const n = await page.$$eval(".notebook-editor .code-cell-row .view-overlays .cdr, .notebook-editor .code-cell-row .view-overlays [class*='ced-']", (els) =>
        els.filter((el) => {
          const bg = getComputedStyle(el).backgroundColor;
          return bg && bg !== "rgba(0, 0, 0, 0)" && bg !== "transparent";
        }).length,
      );
      return n > 0 ? n : 0;
    });
    // the notebook has 3 chunks, 1 broken (guide.md's counts differ; nothing else is open)
    const status = await waitFor("the status bar for the notebook", async () => {
      const t = await statusText();
      return t && /⧉ 3 chunks · 1 broken/.test(t) ? t : undefined;
    });
    await page.keyboard.press("Escape");
    return `${bands} band pieces in the cell; ${status.trim()}`;
  });
  await screenshot("notebook-bands");

  await check("a notebook: lenses in the cells; clicking one shows the chunk of the notebook beside it", async () => {
    const lenses = await waitFor("code lenses in the cells", async () => {
      const t = await texts(".notebook-editor .codelens-decoration");
      return t.some((x) => /Chunk 2\/\d+ · \d+ tokens?/.test(x)) ? t : undefined;
    });
    await page.locator(".notebook-editor .codelens-decoration a", { hasText: "Chunk 2/" }).first().click();
    const tab = page.locator(".tabs-container .tab", { hasText: "chunk 2 of" }).first();
    await tab.waitFor({ timeout: WAIT });
    const view = await waitFor("the chunk's text", async () => {
      const t = (await texts(".editor-instance .monaco-editor .view-lines")).map((x) => x.replace(/\u00a0/g, " "));
      return t.find((x) => x.includes("docs = [p.read_text()"));
    });
    const title = (await tab.textContent()).trim();
    await closeTab("chunk 2 of");
    return `${lenses.filter(Boolean).join(" | ").slice(0, 120)}; ${title}; "${view.slice(0, 40)}…"`;
  });

  await check("a notebook: an edit in the cell that removes the cut removes the squiggle and the row; undo brings them back", async () => {
    // join the cell's first line with the blank one after it: the cell fits one chunk
    const line = page.locator(".notebook-editor .code-cell-row .view-line", { hasText: "folder = Path(" }).first();
    await line.click();
    await page.keyboard.press("End");
    await page.keyboard.press("Delete");
    await waitFor("the squiggle to go", async () => (await cellSquiggles()).every((x) => x.squiggles === 0));
    const cs003Rows = async () => {
      await page.keyboard.press("Control+Shift+M");
      const filter = page.locator(".panel .viewpane-filter input, .markers-panel-container .viewpane-filter input").first();
      await filter.fill("**/retrieval.ipynb");
      try {
        // once the filter applies, no row of another file
        const rows = await waitFor("the filtered Problems", async () => {
          const t = await texts(".markers-panel .monaco-list-row");
          return t.some((x) => /guide\.md|retry\.ts|install\.rst|tabs\.mdx/.test(x)) ? undefined : t;
        }, 10_000);
        return rows.filter((x) => x.includes("CS003")).length;
      } finally {
        await filter.fill("");
      }
    };
    await waitFor("no CS003 row for the notebook", async () => (await cs003Rows()) === 0);
    await screenshot("notebook-fixed");
    // the same cell again, as it was: the cut and its diagnostics are back
    await page.locator(".notebook-editor .code-cell-row .view-line", { hasText: "folder = Path(" }).first().click();
    await page.keyboard.press("Control+z");
    const back = await waitFor("the squiggle back", async () => {
      const c = await cellSquiggles();
      const m = c.filter((x) => x.squiggles > 0);
      return m.length === 1 && m[0].text.includes("folder = Path(") ? m[0] : undefined;
    });
    await waitFor("the CS003 row back", async () => (await cs003Rows()) === 1);
    return `the squiggles and the CS003 row went with the edit; after undo ${back.squiggles} squiggles and the row again`;
  });
  // the notebook is as it was on disk (undone): it closes without asking
  await waitFor("the notebook not dirty", async () => (await page.locator(".tabs-container .tab.dirty", { hasText: "retrieval.ipynb" }).count()) === 0, 10_000);
  await closeTab("retrieval.ipynb");
  await page.locator(".tabs-container .tab.active", { hasText: "guide.md" }).first().waitFor({ timeout: WAIT }); // (a chunk view of guide.md may be active beside it)

  // -- bad input: the server is restarted when its settings change ------------------------------
  // Workspace settings (.vscode/settings.json) override the user's; the
  // workspace folder is watched, so VS Code sees each write.
  const workspaceSettings = path.join(workspace, ".vscode", "settings.json");
  const setSettings = (changes) => {
    const current = fs.existsSync(workspaceSettings) ? JSON.parse(fs.readFileSync(workspaceSettings, "utf8")) : {};
    const merged = { ...current, ...changes };
    const kept = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== null));
    fs.writeFileSync(workspaceSettings, JSON.stringify(kept, null, 2));
  };
  const toasts = () => texts(".notifications-toasts .notification-toast");
  // The extension's output channel is a log file of the workbench.
  const chunkseamLogs = () => {
    const found = [];
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) {
          walk(p);
        } else if (e.name.startsWith("chunkseam.log")) {
          // (with the backups of a log rotated at 5 MB: a start logged just
          // before the rotation is in one)
          found.push(fs.readFileSync(p, "utf8"));
        }
      }
    };
    walk(path.join(dirs["user-data"], "logs"));
    return found;
  };
  const serverStarts = () =>
    chunkseamLogs().map((text) => (text.match(/chunkseam server \S+ is running\./g) ?? []).length).reduce((a, b) => a + b, 0);
  // Starts logged at or after the time `t` (ms): unlike a count over all the logs, this
  // does not depend on older lines staying there (an output channel's log file of a
  // 1 MB document's traffic is rotated, and its first lines go).
  const serverStartsSince = (t) =>
    chunkseamLogs()
      .flatMap((text) => [...text.matchAll(/^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3}) \[info\] chunkseam server \S+ is running\./gm)])
      .filter((m) => new Date(`${m[1]}T${m[2]}`).getTime() >= t - 500).length;
  const clearToasts = async () => {
    await runCommand("Notifications: Clear All Notifications");
    await waitFor("no toasts", async () => (await toasts()).length === 0, 10_000).catch(() => undefined);
  };
  const wrapper = (name, pythonCode) => {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, `#!/bin/sh\nexec "${opts.python}" -c '${pythonCode}' "$@"\n`);
    fs.chmodSync(file, 0o755);
    return file;
  };

  await check("a Python without chunkseam: one notification with install instructions; Set Interpreter… offers a picker", async () => {
    const venv = path.join(tmp, "empty-venv");
    execFileSync(opts.python, ["-m", "venv", "--without-pip", venv], { env: { ...env, PYTHONPATH: "" } });
    // (PYTHONPATH emptied: a checkout on it, as in a developer's shell, would give this Python chunkseam)
    const bare = path.join(tmp, "bare-python");
    fs.writeFileSync(bare, `#!/bin/sh\nPYTHONPATH= exec "${path.join(venv, "bin", "python")}" "$@"\n`);
    fs.chmodSync(bare, 0o755);
    await clearToasts();
    setSettings({ "chunkseam.interpreter": bare });
    const toast = await waitFor("the not-installed notification", async () => (await toasts()).find((t) => t.includes("chunkseam is not installed")));
    const buttons = await texts(".notifications-toasts .notification-toast .monaco-button");
    assert(buttons.some((b) => b.includes("Install Instructions")), `buttons: ${buttons.join(", ")}`);
    await screenshot("no-chunkseam");
    // "Set Interpreter…": a picker (here, without the Python extension, a file
    // dialog: the workbench's own), not a settings page without an input box
    const before = serverStarts();
    await page.locator(".notifications-toasts .notification-toast .monaco-button", { hasText: "Set Interpreter" }).first().click();
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: WAIT });
    const title = (await page.locator(".quick-input-widget .quick-input-title").first().textContent().catch(() => "")) ?? "";
    assert(/interpreter/i.test(title), `the picker's title: "${title}"`);
    await screenshot("interpreter-picker");
    await input.fill(opts.python);
    await page.waitForTimeout(400);
    await page.keyboard.press("Enter");
    await waitFor("the chosen interpreter in the workspace's settings", async () =>
      JSON.parse(fs.readFileSync(workspaceSettings, "utf8"))["chunkseam.interpreter"] === opts.python);
    await waitFor("a server running with the chosen interpreter", async () => serverStarts() > before);
    return `${toast.replace(/\s+/g, " ").slice(0, 100)}; picker "${title.trim()}" -> ${opts.python}, server running`;
  });

  await check("a server that is too old: a message naming both versions", async () => {
    await clearToasts();
    const old = wrapper(
      "old-chunkseam",
      "import sys, chunkseam.core.version as v; v.__version__ = \"0.0.1\"; from chunkseam.lsp import main; sys.exit(main(sys.argv[1:]))",
    );
    setSettings({ "chunkseam.interpreter": null, "chunkseam.server.path": old });
    const toast = await waitFor("the too-old notification", async () => (await toasts()).find((t) => t.includes("too old")));
    assert(toast.includes("0.0.1") && toast.includes(pkg.version), toast);
    return toast.replace(/\s+/g, " ").slice(0, 140);
  });

  await check("a server that keeps crashing: bounded restarts, then one message", async () => {
    await clearToasts();
    const crashing = path.join(tmp, "crashing-chunkseam");
    fs.writeFileSync(crashing, `#!/bin/sh\nexec "${opts.python}" "${path.join(here, "crash-after-open.py")}" "$@"\n`);
    fs.chmodSync(crashing, 0o755);
    setSettings({ "chunkseam.server.path": crashing });
    const toast = await waitFor("the crash notification", async () => (await toasts()).find((t) => t.includes("crashed")), 60_000);
    await page.waitForTimeout(2500);
    const crashToasts = (await toasts()).filter((t) => t.includes("crashed"));
    assert(crashToasts.length === 1, `${crashToasts.length} crash notifications`);
    return toast.replace(/\s+/g, " ").slice(0, 140);
  });

  await check("back to a good server: restarted on the setting change, squiggles again", async () => {
    await clearToasts();
    setSettings({ "chunkseam.server.path": null, "chunkseam.interpreter": null });
    const n = await waitFor("squiggles after the restart", async () => {
      const t = await statusText();
      const count = await page.locator(".monaco-editor .squiggly-error").count();
      return t && count > 0 ? count : 0;
    });
    return `${n} error squiggles`;
  });

  await check("the Restart Server command", async () => {
    const starts = serverStarts;
    const before = starts();
    await focusEditor();
    await runCommand("chunkseam: Restart Server");
    await waitFor("a new server to report running", async () => starts() > before);
    const text = await waitFor("the status bar after the restart", statusText);
    return text.trim();
  });

  /** Restart with the command; the server must come back (squiggles and the status bar). */
  const restartAndExpectRunning = async () => {
    await clearToasts();
    const before = serverStarts();
    await focusEditor();
    await runCommand("chunkseam: Restart Server");
    await waitFor("a new server to report running", async () => serverStarts() > before);
    const text = await waitFor("the status bar after the restart", statusText);
    const failed = (await toasts()).filter((t) => /not found|not installed|cannot be run|did not start/.test(t));
    assert(failed.length === 0, `notifications: ${failed.join(" | ")}`);
    return text.trim();
  };

  const restartOff = async () => {
    const before = serverStarts();
    await focusEditor();
    await runCommand("chunkseam: Restart Server");
    await waitFor("a new server to report running", async () => serverStarts() > before);
    await waitFor("the status bar to say off", async () => (await texts(".statusbar .statusbar-item")).some((x) => x.includes("⧉ off")));
  };

  await check("a settings edit (editor.fontSize) keeps the interpreter: Restart Server still works", async () => {
    // The issue: after any Settings UI edit chunkseam.interpreter (machine-
    // overridable) read back as null in code-server, and a restart failed.
    writeUserSettings({ "editor.fontSize": 15 });
    await page.waitForTimeout(2500); // the workbench reloads its configuration
    return restartAndExpectRunning();
  });

  await check("the interpreter in the remote machine's settings", async () => {
    fs.writeFileSync(machineSettingsFile, JSON.stringify({ "chunkseam.interpreter": opts.python }, null, 2));
    writeUserSettings({ "chunkseam.interpreter": null, "editor.fontSize": 14 });
    await page.waitForTimeout(1500); // let the workbench read both files
    return restartAndExpectRunning();
  });

  await check("no interpreter set: chunkseam found on PATH, still no workspace module imported", async () => {
    // An empty workspace value hides the machine's (removing a value from the
    // machine settings file is not always seen by code-server's workbench).
    setSettings({ "chunkseam.interpreter": "" });
    try {
      await page.waitForTimeout(1500);
      const text = await restartAndExpectRunning();
      const starting = chunkseamLogs().join("\n").match(/Starting the chunkseam server: .*/g) ?? [];
      const last = starting[starting.length - 1] ?? "";
      assert(/\(from PATH/.test(last), `the server was not started from PATH: ${last}`);
      const imported = shadowImported();
      assert(imported.length === 0, `imported from the workspace: ${imported.join(", ")}`);
      return text;
    } finally {
      // the interpreter again for what follows (a restart on the setting change)
      setSettings({ "chunkseam.interpreter": opts.python });
      await waitFor("the server back", statusText).catch(() => undefined);
    }
  });

  await check("started with chunkseam.enable = false, enabled again without a reload", async () => {
    setSettings({ "chunkseam.enable": false });
    await waitFor("the status bar to say off", async () => (await texts(".statusbar .statusbar-item")).some((x) => x.includes("⧉ off")));
    // a server started while disabled gets enable = false in its initialization options
    await restartOff();
    setSettings({ "chunkseam.enable": null });
    const text = await waitFor("the counts again", statusText);
    return text.trim();
  });

  await check("a broken chunkseam.toml: an error state in the status bar and a diagnostic on the file", async () => {
    const config = path.join(workspace, "chunkseam.toml");
    fs.writeFileSync(config, 'chunker = "fixed"\nsize = = 3\n');
    try {
      return await brokenConfig(config);
    } finally {
      fs.rmSync(config, { force: true });
    }
  });

  async function brokenConfig(config) {
    const item = await waitFor("the status bar's config error", async () =>
      (await texts(".statusbar .statusbar-item")).find((x) => x.includes("config error")),
    );
    assert(!/\d+ chunks/.test(item), `the status bar shows counts: ${item}`);
    await page.keyboard.press("Control+Shift+M");
    const row = await waitFor("a Problems row for chunkseam.toml", async () => {
      const t = await texts(".markers-panel .monaco-list-row");
      return t.find((x) => /not valid TOML/.test(x));
    });
    await screenshot("config-error");
    fs.rmSync(config);
    const text = await waitFor("the counts once the file is gone", statusText);
    return `${item.trim()}; ${row.replace(/\s+/g, " ").slice(0, 100)}; then ${text.trim()}`;
  }

  await check("settings say where they come from: the layer of each value, an override of chunkseam.toml told once, the Settings UI unset", async () => {
    // the project's file says size 256; the user's settings say 44 (see `settings` above)
    const config = path.join(workspace, "chunkseam.toml");
    await clearToasts(); // (before the file: its notification may come at once)
    await openFile("guide.md");
    fs.writeFileSync(config, "size = 256\n");
    try {
      const toast = await waitFor("the override notification", async () => (await toasts()).find((t) => /chunkseam\.size = 44 overrides size in chunkseam\.toml/.test(t)));
      assert(/user setting/.test(toast) && /CI/.test(toast), `the notification: ${toast}`);
      const buttons = await texts(".notifications-toasts .notification-toast .monaco-button");
      assert(buttons.some((b) => b.includes("Open chunkseam.toml")) && buttons.some((b) => b.includes("Remove Override")), `buttons: ${buttons.join(", ")}`);
      await screenshot("override-notification");
      // the status bar: the override shows, and its tooltip names each value's layer
      const item = await waitFor("the status bar with the override", async () => (await texts(".statusbar .statusbar-item")).find((x) => /⧉ .*override/.test(x)));
      await page.locator(".statusbar .statusbar-item", { hasText: "override" }).first().hover();
      const tip = await waitFor("the status bar's tooltip", async () => {
        const t = (await texts(".workbench-hover, .monaco-hover")).find((x) => x.includes("Settings"));
        return t && t.includes("overrides") ? t : undefined;
      });
      await screenshot("settings-tooltip");
      const flat = tip.replace(/\s+/g, " ");
      assert(/size ?44 ?user setting ⚠ overrides chunkseam\.toml/.test(flat), `the tooltip: ${flat.slice(0, 600)}`);
      assert(/overlap ?0 ?default/.test(flat), `the tooltip: ${flat.slice(0, 600)}`);
      await page.mouse.move(5, 5);
      // "Remove Override" takes the user's value out (put back for the checks below)
      const sizeToast = (where) => page.locator(`${where} .notification-list-item`, { hasText: "chunkseam.size = 44" }).first();
      await sizeToast(".notifications-toasts").locator(".monaco-button", { hasText: "Remove Override" }).click({ timeout: 5000 }).catch(async () => {
        await runCommand("Notifications: Show Notifications");
        await sizeToast(".notifications-center").locator(".monaco-button", { hasText: "Remove Override" }).click();
      });
      await waitFor("chunkseam.size gone from the user's settings", async () => !("chunkseam.size" in JSON.parse(fs.readFileSync(userSettingsFile, "utf8"))));
      // the Settings UI: with nothing set, chunkseam.size is empty (not a made-up 400)
      // and its description says that the project's file decides
      await runCommand("Preferences: Open User Settings");
      const search = page.locator(".settings-editor .suggest-input-container textarea, .settings-editor .search-container textarea, .settings-editor input").first();
      await search.waitFor({ timeout: WAIT });
      await search.fill("chunkseam.size");
      const described = await waitFor("the size setting's description", async () =>
        (await texts(".settings-editor .setting-item-contents")).find((x) => /Chunk budget/.test(x)));
      await page.waitForTimeout(600);
      await screenshot("settings-view");
      assert(/overrides the project's file in this editor only/.test(described.replace(/\s+/g, " ")), `the description: ${described.slice(0, 400)}`);
      const value = await page.locator(".settings-editor .setting-item-contents", { hasText: "Chunk budget" }).locator("input").first().inputValue().catch(() => "?");
      assert(value === "", `the Settings UI shows size "${value}" where nothing is set (the project's file decides)`);
      await runCommand("View: Close All Editors");
      await openFile("guide.md");
      const after = await waitFor("the status bar without the override", async () => (await texts(".statusbar .statusbar-item")).find((x) => /⧉ \d+ chunks?/.test(x) && !/override/.test(x)));
      return `${toast.replace(/\s+/g, " ").slice(0, 120)}; ${item.trim()} -> ${after.trim()}; Settings UI: size unset`;
    } finally {
      fs.rmSync(config, { force: true });
      writeUserSettings({ "chunkseam.size": 44 });
      await page.keyboard.press("Escape");
    }
  });

  // -- a 1 MB document: time to the first diagnostics, the cap, no flicker ----------------------
  // 400-character windows: 2,500 chunks, 2,458 issues (the cap: 1,000 diagnostics)
  // (the server's debug log: its side of the open, in the timeline below)
  setSettings({ "chunkseam.chunker": "fixed", "chunkseam.size": 400, "chunkseam.unit": "chars", "chunkseam.logLevel": "debug" });
  const big = path.join(workspace, "big.md");
  {
    const guide = fs.readFileSync(path.join(here, "fixture", "guide.md"), "utf8");
    const parts = [];
    let size = 0;
    for (let i = 1; size < 1_000_000; i++) {
      const part = `## Part ${i}\n\n${guide.replace(/^# .*$/m, `### Deploying service ${i}`)}\n`;
      parts.push(part);
      size += Buffer.byteLength(part);
    }
    fs.writeFileSync(big, parts.join(""));
    // the same text for the cold-server check, in a file not opened before it
    // (the typing check may leave big.md's text changed in the workbench, its
    // first squiggles then off screen); written now, so Quick Open lists it then
    fs.writeFileSync(path.join(workspace, "big-cold.md"), parts.join(""));
  }
  // The command line's time on the same document, measured just before and
  // just after the workbench's (the machine's load changes from minute to minute).
  function lintBig() {
    const t = Date.now();
    let out = "";
    try {
      out = execFileSync(opts.python, ["-m", "chunkseam", "lint", "--no-cache", "--chunker", "fixed", "--size", "400", "--unit", "chars", "--ignore", "CS104", "--format", "json", big], {
        cwd: tmp,
        env: { ...env, PYTHONSAFEPATH: "1" },
        maxBuffer: 256 * 1024 * 1024,
      }).toString();
    } catch (e) {
      out = String(e.stdout ?? "");
      assert(e.status === 1, `chunkseam lint exited with ${e.status}: ${String(e.stderr ?? "").slice(0, 400)}`);
    }
    return { seconds: (Date.now() - t) / 1000, issues: JSON.parse(out).issues.length };
  }
  // The language client's trace ("chunkseam.trace.server": "messages") in the
  // extension host's log of the output channel: the requests of the 1 MB open.
  function clientLog() {
    const logs = path.join(dirs["user-data"], "logs");
    const found = fs.existsSync(logs) ? fs.readdirSync(logs, { recursive: true }).filter((f) => String(f).endsWith(path.join("chunkseam.chunkseam", "chunkseam.log"))) : [];
    return found.length ? path.join(logs, String(found[found.length - 1])) : undefined;
  }
  /**
   * The extension host's side of the open, from the language client's trace
   * (its lines carry the local time in ms): when didOpen went out, when the
   * diagnostics came back, and the other answers before the first squiggle,
   * in seconds after Enter (`t0`, ms since the epoch).
   */
  function openTimeline(text, t0, squiggle) {
    const at = (line) => {
      const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})/.exec(line);
      return m ? (new Date(`${m[1]}T${m[2]}`).getTime() - t0) / 1000 : undefined;
    };
    const events = [];
    let diagnosticId;
    for (const line of text.split("\n")) {
      const when = at(line);
      if (when === undefined || when < 0) {
        continue;
      }
      let m;
      // the server's side (its debug log, stamped when it reaches the extension host)
      const server = [
        [/big\.md is about to open/, "head start began"],
        [/big\.md from disk ahead of its opening/, "head start done"],
        [/sending the head start's diagnostics of \S*big\.md/, "head start's diagnostics sent"],
        [/didOpen of \S*big\.md/, "didOpen read"],
        [/reused the analysis of \S*big\.md/, "taken over"],
        [/analysed \S*big\.md v\d+ in/, "analysed"],
      ].find(([re]) => re.test(line) && !/\[Trace/.test(line));
      if (server && when <= squiggle) {
        // the server's own clock: how long after it read the didOpen it had the
        // analysis (the rest of the gap is the message waiting in the extension host)
        const own = /\((\d+) ms after its didOpen was read\)/.exec(line);
        events.push(`(server: ${server[1]} ${when.toFixed(2)}${own ? `, ${own[1]} ms after it read the didOpen` : ""})`);
      } else if (/Received notification 'chunkseam\/headStartDiagnostics'/.test(line) && when <= squiggle) {
        events.push(`head start's diagnostics received ${when.toFixed(2)}`);
      } else if (/Sending notification 'textDocument\/didOpen'/.test(line) && !events.some((e) => e.startsWith("didOpen"))) {
        events.push(`didOpen sent ${when.toFixed(2)}`);
      } else if ((m = /Sending request 'textDocument\/diagnostic - \((\d+)\)'/.exec(line)) && diagnosticId === undefined) {
        diagnosticId = m[1];
        events.push(`diagnostic asked ${when.toFixed(2)}`);
      } else if ((m = /Received response '([^' ]+) - \((\d+)\)' in (\d+)ms/.exec(line)) && when <= squiggle + 0.5) {
        const failed = /Request failed/.test(line) ? " (failed)" : "";
        if (m[1] === "textDocument/diagnostic" && m[2] === diagnosticId) {
          events.push(`diagnostics received ${when.toFixed(2)} (server ${(Number(m[3]) / 1000).toFixed(2)})${failed}`);
          if (failed) {
            diagnosticId = undefined;
          }
        } else {
          events.push(`${m[1].replace(/^textDocument\//, "")} ${when.toFixed(2)}${failed}`);
        }
      }
    }
    events.push(`first squiggle ${squiggle.toFixed(2)}`);
    return events.join(", ");
  }
  /**
   * The cold start from the extension host's log: the old server's stop, the
   * interpreter check, the new server's initialize, big.md's didOpen and its
   * diagnostics, in seconds after the restart was asked for (`t0`).
   */
  function coldTimeline(text, t0, entered, squiggle) {
    const events = [`Enter on big-cold.md ${entered.toFixed(2)}`];
    const seen = new Set();
    const marks = [
      [/Sending notification 'exit'/, "old server told to exit"],
      [/exited cleanly/, "old server gone"],
      [/Looking for the server/, "interpreter check began"],
      [/Starting the chunkseam server/, "new server spawned"],
      [/Received response 'initialize/, "initialize answered"],
      [/chunkseam server \S+ is running/, "running"],
      [/didOpen of \S*big-cold\.md/, "(server: didOpen of big-cold.md read)"],
      [/analysed \S*big-cold\.md v\d+ in/, "(server: big-cold.md analysed)"],
      [/Received notification 'textDocument\/publishDiagnostics'/, "diagnostics pushed"],
      [/Received response 'textDocument\/diagnostic/, "diagnostics received"],
    ];
    let bigOpen = false;
    for (const line of text.split("\n")) {
      const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})/.exec(line);
      if (!m) {
        continue;
      }
      const when = (new Date(`${m[1]}T${m[2]}`).getTime() - t0) / 1000;
      if (when > squiggle + 0.5) {
        break;
      }
      if (/didOpen of \S*big-cold\.md/.test(line)) {
        bigOpen = true;
      }
      for (const [re, name] of marks) {
        // the diagnostics after big.md's didOpen was read (guide.md's come first)
        if (re.test(line) && !seen.has(name) && (!/^diagnostics/.test(name) || bigOpen)) {
          seen.add(name);
          events.push(`${name} ${when.toFixed(2)}`);
        }
      }
    }
    events.push(`first squiggle ${squiggle.toFixed(2)}`);
    return events.join(", ");
  }
  let cliSeconds;
  await check("the command line on the 1 MB document (reference time)", async () => {
    const { seconds, issues } = lintBig();
    cliSeconds = seconds;
    assert(issues > 1000, `${issues} issues: the document should have more than VS Code keeps`);
    return `chunkseam lint: ${cliSeconds.toFixed(2)} s, ${issues} issues`;
  });

  await check("1 MB document: first diagnostics in the workbench (time printed, not asserted)", async () => {
    await page.keyboard.press("Control+p");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: WAIT });
    await input.fill("big.md");
    // the file was written a moment ago: Enter only once Quick Open lists it
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "big.md" }).first().waitFor({ timeout: WAIT });
    await page.waitForTimeout(300);
    const logFile = clientLog();
    const logFrom = logFile ? fs.statSync(logFile).size : 0;
    // The first squiggle's time is taken in the page, when the workbench puts
    // it into the DOM (not when a poll from here next looks): a squiggle in
    // the editor that shows big.md's first lines (guide.md's squiggles are
    // still there for a moment after Enter).
    await page.evaluate(() => {
      window.__firstSquiggle = undefined;
      const seen = new MutationObserver(() => {
        for (const editor of document.querySelectorAll(".monaco-editor")) {
          if (editor.querySelector(".squiggly-warning, .squiggly-error") &&
              /Part\s1\b/.test(editor.querySelector(".view-lines")?.textContent ?? "")) {
            window.__firstSquiggle = Date.now();
            seen.disconnect();
            return;
          }
        }
      });
      seen.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["class"] });
    });
    const t = Date.now();
    await page.keyboard.press("Enter");
    await page.locator(".tabs-container .tab.active", { hasText: "big.md" }).waitFor({ timeout: WAIT });
    const opened = (Date.now() - t) / 1000;
    await waitFor("squiggles in big.md", async () => (await page.locator(".monaco-editor .squiggly-warning, .monaco-editor .squiggly-error").count()) > 0, 120_000, 50);
    const polled = (Date.now() - t) / 1000;
    const stamped = await page.evaluate(() => window.__firstSquiggle);
    assert(typeof stamped === "number", "the squiggles came without a DOM mutation seen");
    const first = (stamped - t) / 1000;
    await waitFor("the status bar for big.md", statusText, 120_000, 100);
    const status = (Date.now() - t) / 1000;
    const after = lintBig().seconds;
    const cli = cliSeconds ? (cliSeconds + after) / 2 : after;
    const ratio = ` = ${(first / cli).toFixed(2)}× the command line's ${cli.toFixed(2)} s (${cliSeconds ? cliSeconds.toFixed(2) : "?"} s before, ${after.toFixed(2)} s after)`;
    console.log(`e2e figures: 1 MB document: editor open ${opened.toFixed(2)} s, first squiggle ${first.toFixed(2)} s${ratio} (seen by polling at ${polled.toFixed(2)} s), status bar ${status.toFixed(2)} s`);
    // what the client asked of the server meanwhile (the log is flushed a little later)
    await page.waitForTimeout(1500);
    let traffic = "no client log";
    const counts = {};
    assert(logFile && fs.existsSync(logFile), "no language client trace to count the requests in");
    if (logFile && fs.existsSync(logFile)) {
      const text = fs.readFileSync(logFile, "utf8").slice(logFrom);
      fs.writeFileSync(path.join(artifacts, "big-open.log"), text);
      for (const m of text.matchAll(/Sending (request|notification) '([^' ]+)/g)) {
        counts[m[2]] = (counts[m[2]] ?? 0) + 1;
      }
      const cancelled = (text.match(/Request failed: .* \(-32800\)/g) ?? []).length;
      traffic = Object.entries(counts).map(([k, v]) => `${k} ×${v}`).join(", ") + `; ${cancelled} answered as cancelled`;
      console.log(`e2e figures: 1 MB document: where the time went (s after Enter): ${openTimeline(text, t, first)}`);
    }
    console.log(`e2e figures: 1 MB document: client → server while it opened: ${traffic}`);
    // The chunk list is asked for again only when chunkseam's diagnostics
    // change, not on every diagnostics event of the workbench (they came
    // five times a second while big.md was open): big.md once, guide.md perhaps once.
    assert((counts["chunkseam/chunks"] ?? 0) <= 3, `chunkseam/chunks asked ${counts["chunkseam/chunks"]} times while big.md opened`);
    return `first squiggle after ${first.toFixed(2)} s${ratio}; status bar after ${status.toFixed(2)} s; ${traffic}`;
  });
  await screenshot("big-document");

  await check("past chunkseam.maxDiagnostics (1,000): the most severe, and one summary of the rest", async () => {
    await page.keyboard.press("Control+Shift+M");
    // the Problems list is virtual and sorted by severity: filter for the summary
    const filter = page.locator(".panel .viewpane-filter input, .markers-panel-container .viewpane-filter input").first();
    await filter.fill("more chunkseam issues");
    // one summary row: the head start's diagnostics (shown before the file
    // opened, see earlyDiagnostics.ts) are gone now its own are in, not doubled
    const summary = await waitFor("exactly one summary row in Problems", async () => {
      const rows = (await texts(".markers-panel .monaco-list-row")).filter((x) => /more chunkseam issues are not shown/.test(x));
      return rows.length === 1 ? rows[0] : undefined;
    }, 60_000);
    await filter.fill("");
    const n = Number(/([\d,]+) more chunkseam issues/.exec(summary)[1].replace(/,/g, ""));
    assert(n > 0, summary);
    return summary.replace(/\s+/g, " ").slice(0, 160);
  });

  await check("typing in the 1 MB document never empties the diagnostics (no flicker)", async () => {
    await focusEditor();
    // Sample, every 10 ms while typing, the Problems counts of the status bar
    // (the marker service: a cancelled pull answered with an empty report
    // drops them to guide.md's few) and the squiggles on screen.
    await page.evaluate(() => {
      window.__csSamples = [];
      window.__csTimer = window.setInterval(() => {
        const item = document.getElementById("status.problems");
        // "⊗ 999 ⚠ 0 ⓘ 1", or "⊗ 1K …" from 1,000 on (at least that many)
        const counts = [...((item && item.textContent) || "").matchAll(/(\d+(?:\.\d+)?)(K?)/g)];
        window.__csSamples.push({
          problems: counts.reduce((a, m) => a + Number(m[1]) * (m[2] ? 1000 : 1), 0),
          squiggles: document.querySelectorAll(".monaco-editor .squiggly-warning, .monaco-editor .squiggly-error").length,
        });
      }, 10);
    });
    await page.keyboard.press("End");
    for (let i = 0; i < 12; i++) {
      await page.keyboard.type(i % 2 ? "x" : " ");
      await page.waitForTimeout(60 + (i % 4) * 90);
    }
    await page.waitForTimeout(4000); // the last analysis lands
    const samples = await page.evaluate(() => {
      window.clearInterval(window.__csTimer);
      return window.__csSamples;
    });
    assert(samples.length > 50, `${samples.length} samples`);
    const problems = samples.map((x) => x.problems);
    const most = Math.max(...problems);
    const least = Math.min(...problems);
    assert(most >= 1000, `the Problems counts: at most ${most}`);
    assert(least >= most / 2, `the Problems counts fell from ${most} to ${least} while typing`);
    const noSquiggle = samples.filter((x) => x.squiggles === 0).length;
    return `${samples.length} samples while typing: Problems ${least}–${most}; no squiggle on screen in ${noSquiggle}`;
  });

  await check("1 MB document with a cold server: Restart Server, then open it (time printed, not asserted)", async () => {
    // no editor open (the typing left big.md unsaved: reverted), then a new
    // server, and big.md opened as soon as the restart is asked for
    for (let i = 0; i < 8 && (await page.locator(".tabs-container .tab").count()) > 0; i++) {
      await runCommand("View: Revert and Close Editor");
    }
    // The first squiggle's time is taken in the page, when the workbench puts
    // it into the DOM, in an editor that shows big.md's first lines (not any
    // squiggle: Quick Open could still pick a recently opened guide.md).
    await page.evaluate(() => {
      window.__firstSquiggle = undefined;
      const seen = new MutationObserver(() => {
        for (const editor of document.querySelectorAll(".monaco-editor")) {
          if (editor.querySelector(".squiggly-warning, .squiggly-error") &&
              /Part\s1\b/.test(editor.querySelector(".view-lines")?.textContent ?? "")) {
            window.__firstSquiggle = Date.now();
            seen.disconnect();
            return;
          }
        }
      });
      seen.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["class"] });
    });
    const logFile = clientLog();
    // t: the Restart Server command is run (its Enter in the command palette)
    await runCommand("chunkseam: Restart Server");
    const t = Date.now();
    await page.keyboard.press("Control+p");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: WAIT });
    await input.fill("big-cold.md");
    // Enter only once big.md is the row Quick Open would open (its list of
    // recently opened files comes first, guide.md on top)
    await page.locator(".quick-input-list .monaco-list-row.focused", { hasText: "big-cold.md" }).first().waitFor({ timeout: WAIT });
    const entered = (Date.now() - t) / 1000;
    await page.keyboard.press("Enter");
    await page.locator(".tabs-container .tab.active", { hasText: "big-cold.md" }).waitFor({ timeout: WAIT });
    let started;
    await waitFor("squiggles in big.md from the new server", async () => {
      if (started === undefined && serverStartsSince(t) > 0) {
        started = (Date.now() - t) / 1000;
      }
      return started !== undefined && (await page.evaluate(() => window.__firstSquiggle)) !== undefined;
    }, 120_000, 50);
    const first = ((await page.evaluate(() => window.__firstSquiggle)) - t) / 1000;
    const cli = lintBig().seconds;
    const figures = `server running (seen by polling) after ${started.toFixed(2)} s, first squiggle in big.md after ${first.toFixed(2)} s = ${(first / cli).toFixed(2)}× the command line's ${cli.toFixed(2)} s (lint --no-cache, just after; times from the Restart Server command)`;
    console.log(`e2e figures: 1 MB document, cold server: ${figures}`);
    // where the time went, from the extension host's log (flushed a little later)
    await screenshot("big-cold");
    await page.waitForTimeout(1500);
    if (logFile && fs.existsSync(logFile)) {
      // the log and its backups (rotated at 5 MB), oldest first
      const dir = path.dirname(logFile);
      const text = fs.readdirSync(dir).filter((f) => f.startsWith("chunkseam.log")).map((f) => path.join(dir, f))
        .sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs).map((f) => fs.readFileSync(f, "utf8")).join("");
      const from = text.lastIndexOf("Restarting the chunkseam server");
      const slice = from < 0 ? text : text.slice(text.lastIndexOf("\n", from) + 1);
      fs.writeFileSync(path.join(artifacts, "big-cold.log"), slice);
      console.log(`e2e figures: 1 MB document, cold server: where the time went (s after Restart Server): ${coldTimeline(slice, t, entered, first)}`);
      // one analysis of big.md for its first diagnostics: the settings the
      // client sends as the server registers are those it has just read, and
      // do not make it analyse the document again (its first diagnostics
      // waited for a second analysis)
      const analyses = slice.match(/analysed \S*big-cold\.md v\d+ in/g) ?? [];
      assert(analyses.length <= 1, `big-cold.md analysed ${analyses.length} times after the restart`);
    }
    return figures;
  });

  await check("no noise in the logs: no clean exit logged as an error, one diagnostic collection per name", async () => {
    // after the restarts above: the server's clean exit (code 0) is not an error,
    // and the extension's collections do not clash with the client's ("chunkseam")
    const logs = path.join(dirs["user-data"], "logs");
    const files = fs.readdirSync(logs, { recursive: true }).map(String).filter((f) => f.endsWith(".log"));
    const lines = files.flatMap((f) => fs.readFileSync(path.join(logs, f), "utf8").split("\n").map((l) => `${path.basename(f)}: ${l}`));
    const restarts = chunkseamLogs().join("\n").match(/Restarting the chunkseam server/g) ?? [];
    assert(restarts.length >= 1, `only ${restarts.length} restarts in the chunkseam log`);
    const noise = lines.filter((l) => /\[error\].*exited with code 0|\[Error.*exited with code 0|DiagnosticCollection.*'chunkseam'.*already exist/i.test(l));
    assert(noise.length === 0, `log noise:\n${noise.slice(0, 6).join("\n")}`);
    return `${restarts.length} restarts; ${files.length} log files clean`;
  });

  await check("still no module of the opened folder imported, after every restart and command", async () => {
    const imported = shadowImported();
    assert(imported.length === 0, `imported from the workspace: ${imported.join(", ")}`);
    return "none";
  });

} catch (e) {
  results.push({ name: "harness", ok: false, error: e });
  log(`harness error: ${e && e.stack ? e.stack : String(e)}`);
  await screenshot("FAILED-harness");
} finally {
  if (context) {
    await context.close().catch(() => undefined);
  }
  if (server && server.pid) {
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  if (!opts.keep) {
    fs.rmSync(tmp, { recursive: true, force: true });
  } else {
    log(`kept ${tmp}`);
  }
}

if (opts["update-media"]) {
  for (const [name, media] of Object.entries(MEDIA)) {
    if (shots.has(name)) {
      fs.copyFileSync(shots.get(name), path.join(extRoot, "media", media));
      log(`media/${media} <- ${path.basename(shots.get(name))}`);
    }
  }
}

const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
log(`finished in ${((Date.now() - t0) / 1000).toFixed(1)} s; screenshots in ${artifacts}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

// The extension in a real VS Code (code-server) in a real browser (Chromium, driven by playwright-core),
// against the real ctxmap binary, on a copy of the golden tests' shop. Each step is checked through the
// workbench's UI and leaves a screenshot in the folder printed at the start.
//
//   CTXMAP_BIN=/path/to/ctxmap npm run test:e2e
//   CTXMAP_VSIX=dist/ctxmap-linux-x64-V.vsix npm run test:e2e
//
// With CTXMAP_BIN the test packages the extension and points ctxmap.path at the binary; with CTXMAP_VSIX
// it installs a platform-specific .vsix from scripts/release as a user would, with no ctxmap.path and no
// ctxmap on PATH, and checks that the server running is the one the .vsix carries.
//
// CHROMIUM (default /usr/bin/chromium), CTXMAP_E2E_CACHE (where code-server is installed once; default
// ~/.cache/ctxmap-e2e) and CTXMAP_E2E_SHOTS (the screenshots' folder) change the defaults.

'use strict';

const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const setup = require('./setup');

const extensionDir = path.resolve(__dirname, '..');
const repoRoot = path.resolve(extensionDir, '..', '..');
const givenVsix = process.env.CTXMAP_VSIX ? path.resolve(process.env.CTXMAP_VSIX) : '';
// the binary the extension must start: CTXMAP_BIN, or the one inside the installed .vsix
let ctxmapBin = !givenVsix && process.env.CTXMAP_BIN ? path.resolve(process.env.CTXMAP_BIN) : '';
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const cacheDir = process.env.CTXMAP_E2E_CACHE || path.join(os.homedir(), '.cache', 'ctxmap-e2e');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxmap-e2e-'));
const shots = path.resolve(process.env.CTXMAP_E2E_SHOTS || path.join(work, 'screenshots'));

const started = Date.now();
const log = (msg) => console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// waitFor polls check until it returns a truthy value or the time is up.
async function waitFor(what, check, timeoutMs = 60000, everyMs = 250) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const v = await check();
      if (v) {
        return v;
      }
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? `: ${last.message}` : ''}`);
    }
    await sleep(everyMs);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// serverPids lists the running `ctxmap serve` processes started under the given process.
function serverPids(ancestor) {
  const parentOf = new Map();
  const servers = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (argv[0] === ctxmapBin && argv.includes('serve')) servers.push(Number(name));
    } catch {
      // the process ended meanwhile
    }
  }
  return servers.filter((pid) => {
    for (let p = pid; p > 1; p = parentOf.get(p) || 0) {
      if (p === ancestor) return true;
    }
    return false;
  });
}

const steps = [];
let page;
let shotCount = 0;

async function shot(name) {
  shotCount++;
  const file = path.join(shots, `${String(shotCount).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

// step runs one check and screenshots the workbench after it, also when it failed.
async function step(name, fn) {
  const t = Date.now();
  try {
    await fn();
    steps.push({ name, ok: true, ms: Date.now() - t });
    log(`ok   ${name}`);
  } catch (err) {
    steps.push({ name, ok: false, ms: Date.now() - t, err });
    log(`FAIL ${name}: ${err.stack || err}`);
  } finally {
    await shot(name).catch(() => {});
  }
}

// palette runs a command by its title through the command palette, as a user does.
// (no Escape first: in an editor it would drop the selection)
async function palette(title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget:visible input');
  await input.waitFor({ state: 'visible', timeout: 15000 });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-widget:visible .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 15000 });
  await input.press('Enter');
}

// openFile opens a workspace file through Quick Open and waits for its tab.
async function openFile(rel) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget:visible input');
  await input.waitFor({ state: 'visible', timeout: 15000 });
  await input.fill(rel);
  const base = path.basename(rel);
  await page.locator('.quick-input-widget:visible .monaco-list-row', { hasText: base }).first().waitFor({ timeout: 15000 });
  await input.press('Enter');
  await page.locator(`.tab.active[aria-label^="${base}"]`).waitFor({ timeout: 15000 });
  await page.locator('.editor-group-container.active .monaco-editor.focused').waitFor({ timeout: 5000 });
}

// closeAll closes every editor, dropping the unsaved packs.
async function closeAll() {
  await palette('View: Close All Editors');
  const dontSave = page.getByRole('button', { name: "Don't Save" });
  if (await dontSave.waitFor({ timeout: 3000 }).then(() => true, () => false)) {
    await dontSave.click();
  }
  await page.locator('.editor-group-container .tab').first().waitFor({ state: 'detached', timeout: 5000 });
}

// selectAll selects the active editor's text and waits for the status bar to say so.
async function selectAll() {
  await page.locator('.editor-group-container.active .view-line', { hasText: /\S/ }).first().click();
  await page.keyboard.press('Control+A');
  await page.locator('.statusbar-item', { hasText: /selected/ }).first().waitFor({ timeout: 5000 });
}

async function statusText() {
  return (await page.locator('.statusbar-item', { hasText: /^ctxmap:/ }).first().innerText()).trim();
}

// readyFiles waits for the status bar's "ctxmap: N files, M entities" and returns N.
async function readyFiles(timeoutMs = 90000, minFiles = 1) {
  const text = await waitFor(`the status bar to say "ctxmap: N files" (N >= ${minFiles})`, async () => {
    const t = await statusText();
    const m = /^ctxmap: ([\d,]+) files?, ([\d,]+) entit/.exec(t);
    return m && Number(m[1].replace(/,/g, '')) >= minFiles ? t : undefined;
  }, timeoutMs);
  return Number(/([\d,]+) file/.exec(text)[1].replace(/,/g, ''));
}

async function notification(pattern, timeoutMs = 30000) {
  const toast = page.locator('.notification-toast', { hasText: pattern }).last();
  await toast.waitFor({ state: 'visible', timeout: timeoutMs });
  return (await toast.innerText()).trim();
}

async function clearNotifications() {
  await page.keyboard.press('Escape');
  await palette('Notifications: Clear All Notifications').catch(() => {});
  await page.keyboard.press('Escape');
}

async function clipboard() {
  return page.evaluate(() => navigator.clipboard.readText());
}

async function main() {
  const problems = setup.missing(ctxmapBin, chromiumPath, givenVsix);
  if (problems.length > 0) {
    console.error('The end-to-end test cannot run here:\n  ' + problems.join('\n  '));
    process.exit(2);
  }
  fs.mkdirSync(shots, { recursive: true });
  log(`screenshots go to ${shots}`);
  const entry = setup.installCodeServer(cacheDir, log);
  const vsix = givenVsix || setup.buildVsix(extensionDir, work);
  log(givenVsix ? `installing ${vsix}` : `built ${vsix}`);

  const workspace = path.join(work, 'shop');
  const userData = path.join(work, 'user-data');
  const extensions = path.join(work, 'extensions');
  setup.makeWorkspace(repoRoot, workspace);
  setup.makeUserData(userData, ctxmapBin);
  // code-server's config and ctxmap's cache stay in the test's folder
  const env = { ...process.env, PATH: givenVsix ? setup.pathWithout('ctxmap') : process.env.PATH, XDG_CACHE_HOME: path.join(work, 'cache'), XDG_CONFIG_HOME: path.join(work, 'config'), XDG_DATA_HOME: path.join(work, 'data') };
  const base = ['--user-data-dir', userData, '--extensions-dir', extensions];
  cp.execFileSync(process.execPath, [entry, ...base, '--install-extension', vsix], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const installed = fs.readdirSync(extensions).filter((d) => d.startsWith('ctxmap.ctxmap-'));
  assert.strictEqual(installed.length, 1, `the .vsix did not install: ${fs.readdirSync(extensions)}`);
  log(`installed ${installed[0]}`);
  if (givenVsix) {
    ctxmapBin = path.join(extensions, installed[0], 'bin', 'ctxmap');
    assert.ok(fs.existsSync(ctxmapBin), `the .vsix carries no bin/ctxmap: ${fs.readdirSync(path.join(extensions, installed[0]))}`);
  }

  const port = await freePort();
  const codeServer = cp.spawn(process.execPath, [entry, ...base, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none',
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override', workspace], {
    env, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  });
  const serverLog = fs.createWriteStream(path.join(work, 'code-server.log'));
  codeServer.stdout.pipe(serverLog);
  codeServer.stderr.pipe(serverLog);
  const stopCodeServer = () => {
    try {
      process.kill(-codeServer.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  process.on('exit', stopCodeServer);
  await waitFor('code-server to listen', async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 60000, 500);
  log(`code-server ${port} up`);

  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${port}` });
    page = await context.newPage();
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
    await runSteps(workspace, codeServer.pid);
  } finally {
    await browser.close().catch(() => {});
    stopCodeServer();
  }
}

async function runSteps(workspace, codeServerPid) {
  let files = 0;
  await step('activation and status bar', async () => {
    files = await readyFiles();
    assert.ok(files >= 17, `the status bar counts ${files} files; the shop has 17 and more`);
    const pids = serverPids(codeServerPid);
    assert.strictEqual(pids.length, 1, `want one ctxmap serve under code-server, found ${pids}`);
  });

  await step('copy context for a selection', async () => {
    await openFile('ISSUE.txt');
    await selectAll();
    await page.evaluate(() => navigator.clipboard.writeText('nothing yet'));
    await palette('ctxmap: Copy Context for LLM');
    const said = await notification(/Copied [\d,]+ tokens/);
    assert.match(said, /Copied [\d,]+ tokens: \d+ files?( \(\d+ whole\))?(, \d+ definitions?)?(, \d+ outlined)?/);
    const text = await waitFor('the pack on the clipboard', async () => {
      const t = await clipboard();
      return t.includes('shop/cart.py') ? t : undefined;
    }, 15000);
    assert.match(text, /^# Context: Discount codes are applied twice/);
    await clearNotifications();
  });

  await step('show context opens the pack', async () => {
    await openFile('ISSUE.txt');
    await selectAll();
    await palette('ctxmap: Show Context');
    await page.locator('.tab.active', { hasText: /Untitled/ }).waitFor({ timeout: 30000 });
    const lines = page.locator('.editor-group-container.active .view-lines');
    // the editor renders spaces as no-break spaces
    const shown = async () => (await lines.innerText()).replace(/\u00a0/g, ' ');
    await waitFor('the pack in the new editor', async () => /# Context: Discount codes/.test(await shown()), 15000);
    assert.match(await shown(), /CART \(/);
  });

  await step('hover shows an entity with links', async () => {
    await closeAll(); // so the pack does not hide cart.py
    await openFile('shop/cart.py');
    const word = page.locator('.editor-group-container.active .view-line span', { hasText: /^Cart$/ }).first();
    await word.waitFor({ timeout: 15000 });
    const hover = page.locator('.monaco-hover:visible', { hasText: 'CART' });
    await waitFor('a hover naming CART', async () => {
      await word.hover();
      await hover.first().waitFor({ state: 'visible', timeout: 3000 });
      return true;
    }, 30000, 500);
    const links = hover.first().locator('a', { hasText: /\.py:\d+/ });
    assert.ok((await links.count()) > 0, `no path:line links in the hover: ${await hover.first().innerText()}`);
    await sleep(400); // the hover fades in: let the screenshot show it whole
  });

  await step('the TODO code lens copies context', async () => {
    await page.keyboard.press('Escape');
    await openFile(setup.todoFile);
    await page.evaluate(() => navigator.clipboard.writeText('nothing yet'));
    const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: /context/i }).first();
    await lens.waitFor({ timeout: 30000 });
    await lens.click();
    await notification(/Copied [\d,]+ tokens/);
    const text = await waitFor('the TODO\'s pack on the clipboard', async () => {
      const t = await clipboard();
      return t.startsWith('# Context') ? t : undefined;
    }, 15000);
    assert.match(text, /refund|inventory|stock/i);
    await clearNotifications();
  });

  await step('explore entity opens a definition', async () => {
    await palette('ctxmap: Explore Entity');
    const input = page.locator('.quick-input-widget:visible input');
    await page.locator('.quick-input-widget:visible .monaco-list-row', { hasText: 'CART' }).first().waitFor({ timeout: 15000 });
    await input.fill('DISCOUNT');
    await page.locator('.quick-input-widget:visible .monaco-list-row', { hasText: 'DISCOUNT' }).first().waitFor({ timeout: 5000 });
    await input.press('Enter');
    await waitFor('the definitions about DISCOUNT', async () => /Code about DISCOUNT/.test(await input.getAttribute('placeholder') || ''), 15000);
    await page.locator('.quick-input-widget:visible .monaco-list-row').first().waitFor({ timeout: 5000 });
    await input.press('Enter');
    await page.locator('.tab.active', { hasText: /discount\.py|cart\.py/ }).waitFor({ timeout: 15000 });
  });

  await step('a file created on disk is indexed', async () => {
    fs.writeFileSync(path.join(workspace, 'shop', 'loyalty.py'), 'class LoyaltyPoints:\n    """Points a customer earns with each order."""\n    def earn(self, order):\n        return order.total // 10\n');
    const now = await readyFiles(30000, files + 1);
    assert.strictEqual(now, files + 1);
    files = now;
    await palette('ctxmap: Show Status');
    assert.match(await notification(/ctxmap: ready/), new RegExp(`ready · ${files} files`));
    await clearNotifications();
  });

  await step('restart server recovers from a killed server', async () => {
    const [old] = serverPids(codeServerPid);
    assert.ok(old, 'no ctxmap serve to kill');
    process.kill(old, 'SIGKILL');
    await waitFor('the killed server to be gone', () => !fs.existsSync(`/proc/${old}`), 10000);
    await palette('ctxmap: Restart Server');
    const now = await readyFiles(60000);
    assert.strictEqual(now, files, `after the restart the index has ${now} files, want ${files}`);
    const pids = await waitFor('one new ctxmap serve', () => {
      const p = serverPids(codeServerPid);
      return p.length === 1 && p[0] !== old ? p : undefined;
    }, 10000);
    assert.notStrictEqual(pids[0], old);
    await palette('ctxmap: Show Status');
    await notification(/files/);
    await clearNotifications();
  });

  await step('entity map opens files', async () => {
    await closeAll();
    await palette('ctxmap: Show Entity Map');
    await page.locator('.tab.active', { hasText: 'Entity Map' }).waitFor({ timeout: 30000 });
    const view = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    const cart = view.locator('g.node[data-name="CART"]');
    await cart.waitFor({ timeout: 30000 });
    for (const name of ['ORDER', 'PAYMENT', 'STOCK', 'DISCOUNT']) {
      assert.strictEqual(await view.locator(`g.node[data-name="${name}"] text`).textContent(), name);
    }
    await shot('entity map');
    await cart.click();
    const link = view.locator('#panel a.file', { hasText: 'shop/cart.py:' });
    await link.waitFor({ timeout: 5000 });
    await shot('entity map CART selected');
    await link.click();
    await page.locator('.tab', { hasText: 'cart.py' }).first().waitFor({ timeout: 15000 });
    const line = await waitFor('the cursor at the linked line', async () => {
      const t = await page.locator('.statusbar-item', { hasText: /Ln \d+/ }).first().innerText();
      return /Ln (\d+)/.exec(t)?.[1];
    }, 10000);
    const want = /shop\/cart\.py:(\d+)/.exec(await link.innerText())[1];
    assert.strictEqual(line, want, `the map's link opened line ${line}, want ${want}`);
  });
}

main()
  .catch((err) => {
    steps.push({ name: 'setup', ok: false, err });
    console.error(err.stack || err);
  })
  .finally(() => {
    const failed = steps.filter((s) => !s.ok);
    log(`screenshots: ${shots}`);
    console.log(`${steps.length - failed.length} passed, ${failed.length} failed`);
    process.exitCode = failed.length > 0 ? 1 : 0;
    if (failed.length === 0 && !process.env.CTXMAP_E2E_KEEP) {
      fs.rmSync(path.join(work, 'shop'), { recursive: true, force: true });
    }
  });

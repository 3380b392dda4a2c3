// The real `ctxmap serve --stdio` (CTXMAP_BIN) on a small workspace written here, spoken to with
// Microsoft's own protocol libraries, with the requests built and the answers read by the extension's
// own functions.

import * as assert from 'node:assert/strict';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { MessageConnection, ResponseError, StreamMessageReader, StreamMessageWriter, createMessageConnection } from 'vscode-jsonrpc/node';
import {
  CodeLens,
  CodeLensRequest,
  DidOpenTextDocumentNotification,
  ExecuteCommandRequest,
  ExitNotification,
  Hover,
  HoverRequest,
  InitializeRequest,
  InitializeResult,
  InitializedNotification,
  MarkupContent,
  ShutdownRequest,
} from 'vscode-languageserver-protocol';
import { Settings, contextArgs, copiedMessage, parsePack, summarisePack, targetFromArgs, targetFromEditor } from '../context';
import { insideRoot, parseEntities, parseExploration } from '../explore';
import { readSettings, serverOptions } from '../settings';
import { parseStatus, stateFromStatus, statusText } from '../status';

const bin = process.env.CTXMAP_BIN;
const skip = bin ? false : 'CTXMAP_BIN is not set: build the binary (go build -o /tmp/ctxmap-bin/ctxmap .) and set CTXMAP_BIN to run the server tests';
const readyWithin = 90_000;

const files: Record<string, string> = {
  'go.mod': 'module example.com/shop\n\ngo 1.21\n',
  'coupon/coupon.go': `package coupon

// Coupon takes a percentage off an order.
type Coupon struct {
	Code    string
	Percent int
}

// Apply returns the total after the coupon's discount.
func (c Coupon) Apply(total int) int {
	return total - total*c.Percent/100
}
`,
  'cart/cart.go': `package cart

import "example.com/shop/coupon"

// Cart holds what a customer is about to buy.
type Cart struct {
	Lines  []Line
	Coupon *coupon.Coupon
}

// Line is one product in the cart.
type Line struct {
	Product string
	Price   int
	Qty     int
}

// TODO: the cart total ignores the coupon discount when the cart has a single line
func (c *Cart) Total() int {
	sum := 0
	for _, l := range c.Lines {
		sum += l.Price * l.Qty
	}
	return sum
}
`,
  'cart/checkout.go': `package cart

// Checkout charges the cart total, after the coupon.
func Checkout(c *Cart) int {
	total := c.Total()
	if c.Coupon != nil {
		total = c.Coupon.Apply(total)
	}
	return total
}
`,
  'cart/cart_test.go': `package cart

import "testing"

func TestTotal(t *testing.T) {
	c := &Cart{Lines: []Line{{Product: "tea", Price: 300, Qty: 2}}}
	if got := c.Total(); got != 600 {
		t.Fatalf("Total() = %d, want 600", got)
	}
}
`,
  'docs/ISSUE.md': `# Coupon discount lost at checkout

A customer with a 10% coupon paid the full price: the cart total at checkout
does not apply the coupon when the cart holds one line.
`,
};

describe('ctxmap serve', { skip }, () => {
  let tmp: string;
  let ws: string;
  let proc: ChildProcess;
  let conn: MessageConnection;
  let init: InitializeResult;
  let stderr = '';
  const progress: string[] = [];
  const settings: Settings = { ...readSettings(() => undefined).settings, budget: 2000 };
  const uriOf = (rel: string) => pathToFileURL(path.join(ws, rel)).toString();

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxmap-vscode-'));
    ws = path.join(tmp, 'shop');
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), text);
    }
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: ws, stdio: 'pipe' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'cart checkout applies the coupon discount');

    // The cache goes to the temp folder, never the user's.
    const env = { ...process.env, XDG_CACHE_HOME: path.join(tmp, 'cache'), LOCALAPPDATA: path.join(tmp, 'cache') };
    proc = spawn(bin as string, ['serve', '--stdio'], { cwd: ws, env, stdio: ['pipe', 'pipe', 'pipe'] });
    proc.stderr?.on('data', (d) => {
      stderr += d.toString();
    });
    conn = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    conn.onRequest('window/workDoneProgress/create', () => null);
    conn.onRequest('client/registerCapability', () => null);
    conn.onRequest('workspace/configuration', (p: { items: unknown[] }) => p.items.map(() => null));
    conn.onUnhandledProgress((p) => progress.push((p.value as { kind: string }).kind));
    conn.onNotification(() => undefined);
    conn.listen();

    init = await conn.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: pathToFileURL(ws).toString(),
      workspaceFolders: [{ uri: pathToFileURL(ws).toString(), name: 'shop' }],
      capabilities: {
        window: { workDoneProgress: true },
        textDocument: { hover: { contentFormat: ['markdown', 'plaintext'] } },
        workspace: { didChangeWatchedFiles: { dynamicRegistration: true } },
      },
      initializationOptions: serverOptions(settings),
    });
    await conn.sendNotification(InitializedNotification.type, {});
  });

  after(async () => {
    if (conn !== undefined && proc.exitCode === null) {
      conn.dispose();
    }
    if (proc !== undefined && proc.exitCode === null) {
      proc.kill();
      await new Promise((r) => proc.once('exit', r));
    }
    if (tmp !== undefined) {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  const execute = (command: string, arg?: unknown) => conn.sendRequest(ExecuteCommandRequest.type, { command, arguments: arg === undefined ? [] : [arg] });

  it('offers the commands, hover and code lens', () => {
    const commands = init.capabilities.executeCommandProvider?.commands ?? [];
    for (const c of ['ctxmap.context', 'ctxmap.exploreEntity', 'ctxmap.entities', 'ctxmap.status']) {
      assert.ok(commands.includes(c), `${c} in ${commands.join(', ')}`);
    }
    assert.ok(init.capabilities.hoverProvider, 'hover');
    assert.ok(init.capabilities.codeLensProvider, 'code lens');
  });

  it('becomes ready, and the status bar text comes from its status', { timeout: readyWithin + 5000 }, async () => {
    const deadline = Date.now() + readyWithin;
    for (;;) {
      const status = parseStatus(await execute('ctxmap.status'));
      const state = stateFromStatus(status);
      if (state.kind === 'ready') {
        assert.ok(status.files >= 5, `${status.files} files indexed`);
        assert.ok(status.definitions > 0);
        assert.equal(fs.realpathSync(status.root), fs.realpathSync(ws));
        assert.match(statusText(state), /^ctxmap: [\d,]+ files?, [\d,]+ entit(y|ies)$/);
        break;
      }
      assert.ok(Date.now() < deadline, `not ready within ${readyWithin} ms; stderr:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    if (progress.length > 0) {
      assert.equal(progress[0], 'begin');
      assert.equal(progress[progress.length - 1], 'end');
    }
  });

  it('puts a code lens on the TODO whose arguments the copy command takes', async () => {
    const rel = 'cart/cart.go';
    const text = files[rel];
    await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: uriOf(rel), languageId: 'go', version: 1, text } });
    const todoLine = text.split('\n').findIndex((l) => l.includes('TODO'));
    const lenses = ((await conn.sendRequest(CodeLensRequest.type, { textDocument: { uri: uriOf(rel) } })) ?? []) as CodeLens[];
    const lens = lenses.find((l) => l.range.start.line <= todoLine && todoLine <= l.range.end.line);
    assert.ok(lens, `a lens over line ${todoLine}: ${JSON.stringify(lenses)}`);
    assert.equal(lens.command?.command, 'ctxmap.copyContext');
    const target = targetFromArgs(lens.command?.arguments?.[0]);
    assert.ok(target !== undefined && 'range' in target, JSON.stringify(lens.command?.arguments));
    assert.equal(target.uri, uriOf(rel));

    const pack = parsePack(await execute('ctxmap.context', contextArgs(target, settings)));
    assert.ok(pack.tokens > 0 && pack.tokens <= settings.budget, `${pack.tokens} tokens for a budget of ${settings.budget}`);
    assert.ok(pack.text.length > 0);
    const paths = pack.items.map((i) => i.path);
    assert.ok(paths.some((p) => p.startsWith('cart/') || p.startsWith('coupon/')), paths.join(', '));
    const summary = summarisePack(pack);
    assert.equal(summary.files + summary.outlined, new Set(paths).size);
    assert.match(copiedMessage(summary), /^Copied [\d,]+ tokens?: [\d,]+ files?( \([\d,]+ whole\))?(, [\d,]+ definitions?)?(, [\d,]+ outlined)?$/);
  });

  it('answers a selection ({uri, range}) with the code it is about', async () => {
    const rel = 'docs/ISSUE.md';
    const lines = files[rel].split('\n');
    const first = lines.findIndex((l) => l.startsWith('A customer'));
    const last = lines.findIndex((l) => l.startsWith('does not apply'));
    const selection = { start: { line: first, character: 0 }, end: { line: last, character: lines[last].length } };
    const target = targetFromEditor({
      uri: uriOf(rel),
      inWorkspace: true,
      selection,
      active: selection.end,
      selectedText: lines.slice(first, last + 1).join('\n'),
    });
    assert.ok(target !== undefined && 'range' in target);
    const pack = parsePack(await execute('ctxmap.context', contextArgs(target, settings)));
    assert.ok(pack.tokens <= settings.budget);
    const symbols = pack.items.map((i) => i.symbol ?? '');
    assert.ok(
      pack.items.some((i) => i.path === 'coupon/coupon.go' || i.path === 'cart/checkout.go'),
      `items: ${pack.items.map((i) => `${i.path} ${i.symbol ?? ''}`).join('; ')}`,
    );
    // a definition named so, as an item of its own or inside a likely small file shown whole
    const declared = /\b(func|def|class|fn|function|interface|type)\b[^\n]*(Coupon|Checkout|Total)/;
    assert.ok(symbols.some((s) => /Coupon|Checkout|Total/.test(s)) || declared.test(pack.text), symbols.join(', '));
  });

  it('answers the cursor in a comment ({uri, position})', async () => {
    const rel = 'cart/cart.go';
    const lines = files[rel].split('\n');
    const line = lines.findIndex((l) => l.includes('TODO'));
    const target = targetFromEditor({
      uri: uriOf(rel),
      inWorkspace: true,
      selection: { start: { line, character: 10 }, end: { line, character: 10 } },
      active: { line, character: 10 },
      selectedText: '',
    });
    assert.deepEqual(target, { uri: uriOf(rel), position: { line, character: 10 } });
    const pack = parsePack(await execute('ctxmap.context', contextArgs(target, { ...settings, format: 'xml' })));
    assert.ok(pack.items.length > 0);
    assert.ok(pack.tokens <= settings.budget);
  });

  it('hovers a domain word in a comment with links to where it is defined', async () => {
    const rel = 'cart/cart.go';
    const lines = files[rel].split('\n');
    const line = lines.findIndex((l) => l.includes('TODO'));
    const character = lines[line].indexOf('coupon') + 2;
    const hover = (await conn.sendRequest(HoverRequest.type, { textDocument: { uri: uriOf(rel) }, position: { line, character } })) as Hover | null;
    assert.ok(hover, 'a hover on "coupon"');
    const value = MarkupContent.is(hover.contents) ? hover.contents.value : JSON.stringify(hover.contents);
    assert.match(value, /coupon/i);
    assert.match(value, /file:\/\//);
  });

  it('lists entities and explores one with chunks inside the workspace', async () => {
    const entities = parseEntities(await execute('ctxmap.entities', { top: 200 }));
    const names = entities.map((e) => e.name);
    const name = names.find((n) => n === 'COUPON' || n === 'CART');
    assert.ok(name, names.join(', '));
    const x = parseExploration(await execute('ctxmap.exploreEntity', { name, limit: 10 }));
    assert.ok(x.chunks.length > 0);
    for (const c of x.chunks) {
      assert.ok(insideRoot(c.path), c.path);
      assert.ok(fs.existsSync(path.join(ws, c.path)), c.path);
      const lines = fs.readFileSync(path.join(ws, c.path), 'utf8').split('\n').length;
      assert.ok(c.startLine >= 1 && c.endLine <= lines, `${c.path}:${c.startLine}-${c.endLine} of ${lines} lines`);
    }
  });

  it('refuses a bad argument with a message a person can act on', async () => {
    await assert.rejects(execute('ctxmap.context', { uri: uriOf('cart/cart.go'), range: 'all of it' }), (err: unknown) => {
      assert.ok(err instanceof ResponseError);
      assert.equal(err.code, -32602);
      assert.ok(err.message.length > 0);
      return true;
    });
  });

  it('shuts down and exits with code 0', { timeout: 15_000 }, async () => {
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    await conn.sendRequest(ShutdownRequest.type);
    await conn.sendNotification(ExitNotification.type);
    assert.equal(await exited, 0, stderr);
  });
});

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { bundledBinary, defaults, findBinary, installCommand, missingBinaryMessage, readSettings, serverOptions } from '../settings';

function settingsFrom(values: Record<string, unknown>) {
  return readSettings((key) => values[key]);
}

describe('readSettings', () => {
  it('takes valid values', () => {
    const { settings, problems } = settingsFrom({ budget: 2000, format: 'xml', tokenizer: 'cl100k_base', fill: true });
    assert.deepEqual(settings, { budget: 2000, format: 'xml', tokenizer: 'cl100k_base', fill: true });
    assert.deepEqual(problems, []);
  });

  it('falls back to the defaults when unset', () => {
    assert.deepEqual(settingsFrom({}), { settings: defaults, problems: [] });
  });

  it('names each bad value and uses its default', () => {
    const { settings, problems } = settingsFrom({ budget: 50, format: 'html', tokenizer: 7, fill: 'yes' });
    assert.deepEqual(settings, defaults);
    assert.equal(problems.length, 4);
    assert.match(problems[0], /ctxmap\.budget 50 .* at least 100/);
    assert.match(problems[1], /ctxmap\.format "html" is not one of markdown, xml, json/);
    assert.match(problems[2], /ctxmap\.tokenizer 7/);
    assert.match(problems[3], /ctxmap\.fill "yes" is not true or false/);
    assert.match(settingsFrom({ budget: 2500.5 }).problems[0], /whole number/);
  });

  it('sends budget, format and tokenizer to the server', () => {
    assert.deepEqual(serverOptions({ budget: 3000, format: 'json', tokenizer: 'o200k_base', fill: false }), { budget: 3000, format: 'json', tokenizer: 'o200k_base' });
  });

  it('passes an embedding provider on, and leaves it out when unset', () => {
    const embedding = { provider: 'openai', url: 'http://localhost:11434/v1', model: 'nomic-embed-text', apiKeyEnv: 'EMBED_KEY', dimensions: 256 };
    const { settings, problems } = settingsFrom({ embedding });
    assert.deepEqual(problems, []);
    assert.deepEqual(serverOptions(settings).embedding, embedding);
    assert.equal('embedding' in serverOptions(settingsFrom({ embedding: null }).settings), false);
  });

  it('names a malformed embedding setting and sends none', () => {
    for (const [bad, why] of [
      ['openai', /is not an object/],
      [{ provider: 'cohere' }, /provider "cohere" is not one of glove, openai/],
      [{ provider: 'openai', apiKey: 'sk-x' }, /unknown field "apiKey"/],
      [{ model: 3 }, /field "model" is 3, not a string/],
      [{ dimensions: -1 }, /dimensions -1/],
    ] as const) {
      const { settings, problems } = settingsFrom({ embedding: bad });
      assert.equal(settings.embedding, undefined);
      assert.equal(problems.length, 1);
      assert.match(problems[0], why);
    }
  });
});

describe('findBinary', { skip: process.platform === 'win32' ? 'POSIX file modes' : false }, () => {
  function tree() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxmap-bin-'));
    const home = path.join(dir, 'home');
    const onPath = path.join(dir, 'bin');
    for (const d of [home, onPath, path.join(home, 'go', 'bin'), path.join(dir, 'gopath', 'bin'), path.join(dir, 'ws', 'tools')]) {
      fs.mkdirSync(d, { recursive: true });
    }
    const exe = (f: string) => {
      fs.writeFileSync(f, '#!/bin/sh\n');
      fs.chmodSync(f, 0o755);
      return f;
    };
    return { dir, home, onPath, exe };
  }

  it('finds the name on PATH', () => {
    const t = tree();
    const want = t.exe(path.join(t.onPath, 'ctxmap'));
    assert.equal(findBinary('ctxmap', { PATH: t.onPath, HOME: t.home }, undefined), want);
  });

  it('skips a file that is not executable and a folder of the same name', () => {
    const t = tree();
    fs.writeFileSync(path.join(t.onPath, 'ctxmap'), 'not a program');
    fs.mkdirSync(path.join(t.dir, 'other', 'ctxmap'), { recursive: true });
    const env = { PATH: [path.join(t.dir, 'other'), t.onPath].join(path.delimiter), HOME: t.home };
    assert.equal(findBinary('ctxmap', env, undefined), undefined);
  });

  it('looks where go install puts binaries when PATH lacks it', () => {
    const t = tree();
    const inHome = t.exe(path.join(t.home, 'go', 'bin', 'ctxmap'));
    assert.equal(findBinary('ctxmap', { PATH: t.onPath, HOME: t.home }, undefined), inHome);
    const inGopath = t.exe(path.join(t.dir, 'gopath', 'bin', 'ctxmap'));
    assert.equal(findBinary('', { PATH: t.onPath, HOME: t.home, GOPATH: path.join(t.dir, 'gopath') }, undefined), inGopath);
  });

  it('takes absolute, home and workspace-relative paths as given', () => {
    const t = tree();
    const abs = t.exe(path.join(t.dir, 'ctxmap-dev'));
    assert.equal(findBinary(abs, { PATH: '' , HOME: t.home }, undefined), abs);
    const home = t.exe(path.join(t.home, 'ctxmap-home'));
    assert.equal(findBinary('~/ctxmap-home', { PATH: '', HOME: t.home }, undefined), home);
    const rel = t.exe(path.join(t.dir, 'ws', 'tools', 'ctxmap'));
    assert.equal(findBinary('tools/ctxmap', { PATH: '', HOME: t.home }, path.join(t.dir, 'ws')), rel);
    assert.equal(findBinary('tools/ctxmap', { PATH: '', HOME: t.home }, undefined), undefined);
    assert.equal(findBinary(path.join(t.dir, 'missing'), { PATH: t.onPath, HOME: t.home }, undefined), undefined);
  });
});

describe('bundledBinary', { skip: process.platform === 'win32' ? 'POSIX file modes' : false }, () => {
  it('is the executable bin/ctxmap of a platform-specific .vsix, else nothing', () => {
    const ext = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxmap-ext-'));
    assert.equal(bundledBinary(ext), undefined);
    fs.mkdirSync(path.join(ext, 'bin'));
    const bin = path.join(ext, 'bin', 'ctxmap');
    fs.writeFileSync(bin, '#!/bin/sh\n');
    assert.equal(bundledBinary(ext), undefined, 'not executable');
    fs.chmodSync(bin, 0o755);
    assert.equal(bundledBinary(ext), bin);
    assert.equal(bundledBinary(ext, 'win32'), undefined, 'Windows looks for ctxmap.exe');
  });
});

describe('missingBinaryMessage', () => {
  it('gives the install command and the setting', () => {
    assert.ok(missingBinaryMessage('ctxmap').includes(installCommand));
    assert.match(missingBinaryMessage('ctxmap'), /not on PATH/);
    assert.match(missingBinaryMessage('/opt/ctxmap'), /ctxmap\.path "\/opt\/ctxmap" is not an executable file/);
  });
});

describe('package.json', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));

  it('contributes the commands, the copy keybinding and the selection menu', () => {
    const ids = pkg.contributes.commands.map((c: { command: string }) => c.command);
    for (const id of ['ctxmap.copyContext', 'ctxmap.showContext', 'ctxmap.exploreEntity', 'ctxmap.restartServer', 'ctxmap.showStatus']) {
      assert.ok(ids.includes(id), id);
    }
    const copy = pkg.contributes.keybindings.find((k: { command: string }) => k.command === 'ctxmap.copyContext');
    assert.equal(copy.key, 'ctrl+alt+c');
    assert.equal(copy.mac, 'cmd+alt+c');
    const menu = pkg.contributes.menus['editor/context'].map((m: { command: string; when: string }) => [m.command, m.when]);
    assert.deepEqual(menu[0], ['ctxmap.copyContext', 'editorHasSelection']);
  });

  it('declares the settings with the defaults the code falls back to', () => {
    const props = pkg.contributes.configuration.properties;
    assert.equal(props['ctxmap.path'].default, 'ctxmap');
    assert.equal(props['ctxmap.budget'].default, defaults.budget);
    assert.equal(props['ctxmap.format'].default, defaults.format);
    assert.equal(props['ctxmap.tokenizer'].default, defaults.tokenizer);
    assert.deepEqual(props['ctxmap.trace.server'].enum, ['off', 'messages', 'verbose']);
  });

  it('takes the settings that reach outside the folder from the user alone', () => {
    const props = pkg.contributes.configuration.properties;
    for (const key of ['ctxmap.path', 'ctxmap.embedding']) {
      assert.equal(props[key].scope, 'machine', key);
      assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(key), key);
    }
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
  });

  it('starts from the compiled entry point', () => {
    assert.equal(pkg.main, './out/extension.js');
    assert.ok(fs.existsSync(path.join(__dirname, '..', 'extension.js')));
  });
});

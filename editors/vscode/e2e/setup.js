// What the end-to-end test needs before a browser opens: the tools it checks for, code-server installed
// without a network beyond the npm registry, the .vsix, a workspace and a fresh user-data folder.

'use strict';

const cp = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const codeServerVersion = '4.100.3';
// code-server's @vscode/ripgrep downloads this release of rg unless its cache already holds it.
const ripgrepPackage = '1.15.11';
const ripgrepTarball = 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz';

const aptPackages = 'build-essential python3 pkg-config libsecret-1-dev libkrb5-dev libx11-dev libxkbfile-dev ripgrep chromium';

function which(name) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

// missing lists what the machine lacks, each with what to do about it.
function missing(ctxmapBin, chromium, vsix) {
  const out = [];
  if (vsix) {
    if (!fs.existsSync(vsix)) {
      out.push(`CTXMAP_VSIX=${vsix} does not exist: build it with scripts/release --targets linux-amd64`);
    }
  } else if (!ctxmapBin) {
    out.push('CTXMAP_BIN is not set: build the binary (go build -o /tmp/ctxmap .) and set CTXMAP_BIN to it');
  } else if (!fs.existsSync(ctxmapBin)) {
    out.push(`CTXMAP_BIN=${ctxmapBin} does not exist`);
  }
  if (!fs.existsSync(chromium)) {
    out.push(`no Chromium at ${chromium}: apt-get install chromium (or set CHROMIUM)`);
  }
  const major = Number(process.versions.node.split('.')[0]);
  if (major !== 20) {
    out.push(`code-server ${codeServerVersion} runs on Node 20; this is Node ${process.versions.node}`);
  }
  for (const tool of ['rg', 'make', 'g++', 'python3', 'pkg-config']) {
    if (!which(tool)) {
      out.push(`${tool} is not on PATH: apt-get install ${aptPackages}`);
    }
  }
  for (const pc of ['libsecret-1', 'krb5-gssapi', 'x11', 'xkbfile']) {
    if (which('pkg-config') && cp.spawnSync('pkg-config', ['--exists', pc]).status !== 0) {
      out.push(`the ${pc} development files are missing: apt-get install ${aptPackages}`);
    }
  }
  return out;
}

// installCodeServer installs code-server into cacheDir once; later runs reuse it.
function installCodeServer(cacheDir, log) {
  const prefix = path.join(cacheDir, `code-server-${codeServerVersion}`);
  const entry = path.join(prefix, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (fs.existsSync(entry)) {
    return entry;
  }
  fs.mkdirSync(prefix, { recursive: true });
  // rg comes from the system: a tarball in @vscode/ripgrep's cache stops its download.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxmap-e2e-npm-'));
  const cache = path.join(tmp, `vscode-ripgrep-cache-${ripgrepPackage}`);
  const staging = path.join(tmp, 'rg');
  fs.mkdirSync(cache);
  fs.mkdirSync(staging);
  fs.copyFileSync(which('rg'), path.join(staging, 'rg'));
  cp.execFileSync('tar', ['-czf', path.join(cache, ripgrepTarball), '-C', staging, 'rg']);
  log(`installing code-server ${codeServerVersion} into ${prefix} (native modules build; a few minutes)`);
  const started = Date.now();
  const res = cp.spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', prefix, `code-server@${codeServerVersion}`], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, TMPDIR: tmp, npm_config_unsafe_perm: 'true', npm_config_yes: 'true' },
  });
  fs.rmSync(tmp, { recursive: true, force: true });
  if (res.status !== 0 || !fs.existsSync(entry)) {
    throw new Error(`npm install code-server@${codeServerVersion} failed (exit ${res.status}); see its output above`);
  }
  log(`code-server installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return entry;
}

// buildVsix packages the extension as a user would and returns the file.
function buildVsix(extensionDir, outDir) {
  const vsix = path.join(outDir, 'ctxmap.vsix');
  const vsce = path.join(extensionDir, 'node_modules', '.bin', 'vsce');
  cp.execFileSync(vsce, ['package', '--out', vsix], { cwd: extensionDir, stdio: ['ignore', 'ignore', 'inherit'] });
  return vsix;
}

// writeTxtar writes the files of a txtar archive under root.
function writeTxtar(archive, root) {
  const text = fs.readFileSync(archive, 'utf8');
  const parts = text.split(/^-- (.+?) --$/m);
  for (let i = 1; i < parts.length; i += 2) {
    const file = path.join(root, parts[i].trim());
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, parts[i + 1].replace(/^\n/, ''));
  }
}

// The workspace: the golden tests' shop, an issue to select, and a TODO for the code lens.
const issueText = 'Discount codes are applied twice when the same item is added to the cart twice.';
const todoFile = 'shop/refund.py';
const todoText = `# TODO: a refund of a cart line must give the stock back to the inventory
def refund(cart, sku):
    cart.remove_item(sku)
`;

function makeWorkspace(repoRoot, root) {
  writeTxtar(path.join(repoRoot, 'testdata', 'shop.txtar'), root);
  fs.writeFileSync(path.join(root, 'ISSUE.txt'), issueText + '\n');
  fs.writeFileSync(path.join(root, todoFile), todoText);
}

// pathWithout is PATH less the folders that hold an executable of that name.
function pathWithout(name) {
  return (process.env.PATH || '').split(path.delimiter).filter((dir) => {
    try {
      fs.accessSync(path.join(dir, name), fs.constants.X_OK);
      return false;
    } catch {
      return true;
    }
  }).join(path.delimiter);
}

// makeUserData writes the settings; without ctxmapBin there is no ctxmap.path, as after a fresh install.
function makeUserData(dir, ctxmapBin) {
  const user = path.join(dir, 'User');
  fs.mkdirSync(user, { recursive: true });
  const settings = {
    ...(ctxmapBin ? { 'ctxmap.path': ctxmapBin } : {}),
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'editor.hover.delay': 200,
    'editor.codeLens': true,
    'editor.minimap.enabled': false,
    'chat.commandCenter.enabled': false,
    'workbench.colorTheme': 'Default Light Modern',
  };
  fs.writeFileSync(path.join(user, 'settings.json'), JSON.stringify(settings, null, 2));
}

module.exports = { missing, installCodeServer, buildVsix, makeWorkspace, makeUserData, pathWithout, issueText, todoFile, which };

// The extension's settings and the binary they point at. No vscode import: the unit tests run this module
// in plain Node.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Embedding, Settings } from './context';

export const installCommand = 'go install github.com/ctxmap/ctxmap@latest';

export const defaults: Settings = { budget: 8000, format: 'markdown', tokenizer: 'o200k_base', fill: false };

const formats = ['markdown', 'xml', 'json'];
const tokenizers = ['o200k_base', 'cl100k_base'];
const minBudget = 100;

// The values in use and what was wrong with the others: a bad value falls back to its default and is
// named, so the user learns why the pack is not what they set.
export function readSettings(get: (key: string) => unknown): { settings: Settings; problems: string[] } {
  const settings = { ...defaults };
  const problems: string[] = [];
  // take uses a setting when ok accepts it, else names it with what it is not; unset, it keeps its default
  const take = <K extends Exclude<keyof Settings, 'embedding'>>(key: K, ok: (v: unknown) => boolean, isNot: string): void => {
    const value = get(key);
    if (value === undefined || value === null) {
      return;
    }
    if (ok(value)) {
      settings[key] = value as Settings[K];
    } else {
      problems.push(`ctxmap.${key} ${JSON.stringify(value)} is not ${isNot}; using ${defaults[key]}`);
    }
  };
  take('budget', (v) => typeof v === 'number' && Number.isInteger(v) && v >= minBudget, `a whole number of at least ${minBudget} tokens`);
  take('format', (v) => typeof v === 'string' && formats.includes(v), `one of ${formats.join(', ')}`);
  take('tokenizer', (v) => typeof v === 'string' && tokenizers.includes(v), `one of ${tokenizers.join(', ')}`);
  take('fill', (v) => typeof v === 'boolean', 'true or false');
  const embedding = get('embedding');
  if (embedding !== undefined && embedding !== null) {
    const problem = embeddingProblem(embedding);
    if (problem === undefined) {
      settings.embedding = embedding as Embedding;
    } else {
      problems.push(`ctxmap.embedding ${problem}; using the workspace's .ctxmap.yaml, else the offline default`);
    }
  }
  return { settings, problems };
}

const embeddingFields: Record<string, string> = { provider: 'string', url: 'string', model: 'string', apiKeyEnv: 'string', dimensions: 'number' };
const providers = ['glove', 'openai'];

// The shape only: the server checks the values (a URL it can use, a key variable that is set) and says why.
function embeddingProblem(v: unknown): string | undefined {
  if (typeof v !== 'object' || Array.isArray(v)) {
    return `${JSON.stringify(v)} is not an object`;
  }
  for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
    const want = embeddingFields[key];
    if (want === undefined) {
      return `has an unknown field "${key}" (known: ${Object.keys(embeddingFields).join(', ')})`;
    }
    if (typeof value !== want) {
      return `field "${key}" is ${JSON.stringify(value)}, not a ${want}`;
    }
  }
  const e = v as Embedding;
  if (e.provider !== undefined && !providers.includes(e.provider)) {
    return `provider "${e.provider}" is not one of ${providers.join(', ')}`;
  }
  if (e.dimensions !== undefined && (!Number.isInteger(e.dimensions) || e.dimensions < 0)) {
    return `dimensions ${e.dimensions} is not a whole number of at least 0`;
  }
  return undefined;
}

// initializationOptions and the settings of workspace/didChangeConfiguration: the same object. Without an
// embedding setting the server keeps the workspace file's.
export function serverOptions(s: Settings): { budget: number; format: string; tokenizer: string; embedding?: Embedding } {
  const out: { budget: number; format: string; tokenizer: string; embedding?: Embedding } = { budget: s.budget, format: s.format, tokenizer: s.tokenizer };
  if (s.embedding !== undefined) {
    out.embedding = s.embedding;
  }
  return out;
}

// bundledBinary is the binary a platform-specific .vsix carries in its bin/ folder, when it carries one.
export function bundledBinary(extensionPath: string, platform = process.platform): string | undefined {
  return executable(path.join(extensionPath, 'bin', platform === 'win32' ? 'ctxmap.exe' : 'ctxmap'), ['']);
}

// The binary to start: the extension's own (bundled, the version it was built with) first; then
// ctxmap.path as a path (absolute, "~/..." or relative to the workspace), or a name
// looked up on PATH and then where `go install` puts binaries (GOBIN, GOPATH/bin, ~/go/bin), which an
// editor started from a desktop menu often lacks on its PATH.
export function findBinary(setting: string, env: NodeJS.ProcessEnv, workspace: string | undefined, platform = process.platform): string | undefined {
  const name = setting.trim() === '' ? 'ctxmap' : setting.trim();
  const exts = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter((e) => e !== '')] : [''];
  if (name.startsWith('~/') || name.startsWith('~\\')) {
    return executable(path.join(env.HOME ?? os.homedir(), name.slice(2)), exts);
  }
  if (path.isAbsolute(name)) {
    return executable(name, exts);
  }
  if (name.includes('/') || name.includes('\\')) {
    return workspace === undefined ? undefined : executable(path.resolve(workspace, name), exts);
  }
  const dirs = (env.PATH ?? '').split(path.delimiter).filter((d) => d !== '');
  if (env.GOBIN) {
    dirs.push(env.GOBIN);
  }
  for (const gopath of (env.GOPATH ?? '').split(path.delimiter).filter((d) => d !== '')) {
    dirs.push(path.join(gopath, 'bin'));
  }
  dirs.push(path.join(env.HOME ?? os.homedir(), 'go', 'bin'));
  for (const dir of dirs) {
    const found = executable(path.join(dir, name), exts);
    if (found !== undefined) {
      return found;
    }
  }
  return undefined;
}

export function missingBinaryMessage(setting: string): string {
  const name = setting.trim() === '' ? 'ctxmap' : setting.trim();
  const where = name === 'ctxmap' ? 'ctxmap is not on PATH' : `ctxmap.path "${name}" is not an executable file`;
  return `ctxmap: cannot start the language server: ${where}. Install it with \`${installCommand}\`, or set ctxmap.path to the binary.`;
}

function executable(file: string, exts: string[]): string | undefined {
  for (const ext of exts) {
    const f = file + ext;
    try {
      if (fs.statSync(f).isFile()) {
        fs.accessSync(f, fs.constants.X_OK);
        return f;
      }
    } catch {
      // not there, or not executable: try the next candidate
    }
  }
  return undefined;
}

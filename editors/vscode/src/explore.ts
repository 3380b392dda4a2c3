// The two quick picks of "Explore Entity": the entities, then the chunks about the one chosen. No vscode
// import: the unit tests run this module in plain Node.

import { count } from './context';

export interface EntityEntry {
  name: string;
  importance: number;
  files: number;
}

export interface Chunk {
  path: string;
  symbol: string;
  kind: string;
  startLine: number; // 1-based, as the server counts
  endLine: number;
  mentions: number;
}

export interface Exploration {
  entity: string;
  chunks: Chunk[];
}

export interface PickEntry<T> {
  label: string;
  description: string;
  detail?: string;
  value: T;
}

// ctxmap.entities answers an array of entities: fileCount is the number of files (files may be cut
// short); without it files is the list of paths or their number.
export function parseEntities(answer: unknown): EntityEntry[] {
  if (!Array.isArray(answer)) {
    throw new Error('the server did not answer a list of entities');
  }
  const out: EntityEntry[] = [];
  for (const e of answer) {
    if (typeof e !== 'object' || e === null || typeof e.name !== 'string' || e.name === '') {
      continue;
    }
    out.push({ name: e.name, importance: numberOr(e.importance, 0), files: typeof e.fileCount === 'number' ? fileCount(e.fileCount) : fileCount(e.files) });
  }
  return out;
}

export function parseExploration(answer: unknown): Exploration {
  if (typeof answer !== 'object' || answer === null) {
    throw new Error('the server did not answer an exploration');
  }
  const a = answer as Record<string, unknown>;
  let entity = '';
  if (typeof a.entity === 'string') {
    entity = a.entity;
  } else if (typeof a.entity === 'object' && a.entity !== null && typeof (a.entity as { name?: unknown }).name === 'string') {
    entity = (a.entity as { name: string }).name;
  }
  const chunks: Chunk[] = [];
  if (Array.isArray(a.chunks)) {
    for (const c of a.chunks) {
      if (typeof c !== 'object' || c === null || typeof c.path !== 'string' || c.path === '') {
        continue;
      }
      const start = Math.max(1, Math.trunc(numberOr(c.startLine, 1)));
      chunks.push({
        path: c.path,
        symbol: typeof c.symbol === 'string' ? c.symbol : '',
        kind: typeof c.kind === 'string' ? c.kind : '',
        startLine: start,
        endLine: Math.max(start, Math.trunc(numberOr(c.endLine, start))),
        mentions: Math.trunc(numberOr(c.mentions, 0)),
      });
    }
  }
  return { entity, chunks };
}

// QUALITY_PROFILE  0.82 · 14 files
export function entityPicks(entities: EntityEntry[]): PickEntry<string>[] {
  return entities.map((e) => ({
    label: e.name,
    description: `${e.importance.toFixed(2)} · ${count(e.files, 'file')}`,
    value: e.name,
  }));
}

// RuleIndex.Active  rules/index.go:12-40
// method · 3 mentions
export function chunkPicks(x: Exploration): PickEntry<Chunk>[] {
  return x.chunks.map((c) => ({
    label: c.symbol || c.path,
    description: `${c.path}:${c.startLine}${c.endLine > c.startLine ? `-${c.endLine}` : ''}`,
    detail: [c.kind, count(c.mentions, 'mention')].filter((s) => s !== '').join(' · '),
    value: c,
  }));
}

// Where to open a chunk: the server counts lines from 1, editors from 0.
export function chunkSelection(c: Chunk): { startLine: number; endLine: number } {
  return { startLine: c.startLine - 1, endLine: c.endLine - 1 };
}

// A workspace-relative path from the server, kept inside the root: "../x" and absolute paths are refused
// rather than opened.
export function insideRoot(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path)) {
    return false;
  }
  return !path.split(/[\\/]/).some((seg) => seg === '..');
}

function fileCount(files: unknown): number {
  if (Array.isArray(files)) {
    return files.length;
  }
  return Math.max(0, Math.trunc(numberOr(files, 0)));
}

function numberOr(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

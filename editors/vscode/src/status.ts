// The status bar item's text and the status details. No vscode import: the unit tests run this module in
// plain Node.

import { count } from './context';

export interface ServerStatus {
  ready: boolean;
  indexing: boolean;
  files: number;
  definitions: number;
  entities: number;
  lastUpdate: string;
  root: string;
  vectors: string; // the embedding model, or "off: " and why
  error: string; // why the last full index failed
}

// What the item shows: the server starting, indexing (with a percentage when the progress has one),
// ready with counts, or stopped with the reason.
export type StatusState =
  | { kind: 'starting' }
  | { kind: 'indexing'; percentage?: number; message?: string }
  | { kind: 'ready'; status: ServerStatus }
  | { kind: 'failed'; reason: string }
  | { kind: 'stopped'; reason: string };

export function parseStatus(answer: unknown): ServerStatus {
  if (typeof answer !== 'object' || answer === null) {
    throw new Error('the server did not answer a status');
  }
  const a = answer as Record<string, unknown>;
  return {
    ready: a.ready === true,
    indexing: a.indexing === true,
    files: wholeNumber(a.files),
    definitions: wholeNumber(a.definitions),
    entities: wholeNumber(a.entities),
    lastUpdate: typeof a.lastUpdate === 'string' ? a.lastUpdate : '',
    root: typeof a.root === 'string' ? a.root : '',
    vectors: typeof a.vectors === 'string' ? a.vectors : '',
    error: typeof a.error === 'string' ? a.error : '',
  };
}

// A status answer becomes the state to show: still indexing until the server says it is ready, unless
// the index failed (waiting longer would not help).
export function stateFromStatus(s: ServerStatus): StatusState {
  if (s.error !== '' && !s.indexing) {
    return { kind: 'failed', reason: `ctxmap: indexing failed: ${s.error}` };
  }
  if (!s.ready || s.indexing) {
    return { kind: 'indexing' };
  }
  return { kind: 'ready', status: s };
}

// "ctxmap: indexing 45%", then "ctxmap: 1,234 files, 87 entities".
export function statusText(state: StatusState): string {
  switch (state.kind) {
    case 'starting':
      return 'ctxmap: starting';
    case 'indexing':
      return state.percentage === undefined ? 'ctxmap: indexing' : `ctxmap: indexing ${Math.round(clamp(state.percentage))}%`;
    case 'ready':
      return `ctxmap: ${count(state.status.files, 'file')}, ${count(state.status.entities, 'entity', 'entities')}`;
    case 'failed':
      return 'ctxmap: index failed';
    case 'stopped':
      return 'ctxmap: stopped';
  }
}

export function statusTooltip(state: StatusState): string {
  switch (state.kind) {
    case 'starting':
      return 'The ctxmap language server is starting';
    case 'indexing':
      return state.message ? `Indexing the workspace: ${state.message}` : 'Indexing the workspace';
    case 'ready':
      return statusDetails(state.status);
    case 'failed':
    case 'stopped':
      return state.reason;
  }
}

// One line for a notification: ready, the counts, the root, the embedding model, when the index last
// changed and what failed.
export function statusDetails(s: ServerStatus, now = new Date()): string {
  const parts = [
    s.ready && !s.indexing ? 'ready' : 'indexing',
    `${count(s.files, 'file')}, ${count(s.definitions, 'definition')}, ${count(s.entities, 'entity', 'entities')}`,
  ];
  if (s.root !== '') {
    parts.push(`root ${s.root}`);
  }
  if (s.vectors !== '') {
    parts.push(`vectors ${s.vectors}`);
  }
  const updated = ago(s.lastUpdate, now);
  if (updated !== '') {
    parts.push(`updated ${updated}`);
  }
  if (s.error !== '') {
    parts.push(`error: ${s.error}`);
  }
  return `ctxmap: ${parts.join(' · ')}`;
}

// "12 s ago", "3 min ago", "2 h ago", else the date; nothing for a time that is unset (Go's zero time).
export function ago(when: string, now: Date): string {
  const t = Date.parse(when);
  if (Number.isNaN(t) || new Date(t).getUTCFullYear() <= 1) {
    return '';
  }
  const secs = Math.max(0, Math.round((now.getTime() - t) / 1000));
  if (secs < 60) {
    return `${secs} s ago`;
  }
  if (secs < 3600) {
    return `${Math.floor(secs / 60)} min ago`;
  }
  if (secs < 86400) {
    return `${Math.floor(secs / 3600)} h ago`;
  }
  return `on ${new Date(t).toISOString().slice(0, 10)}`;
}

function clamp(p: number): number {
  return Math.max(0, Math.min(100, p));
}

function wholeNumber(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.trunc(v) : 0;
}

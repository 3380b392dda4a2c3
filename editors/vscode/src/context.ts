// The request behind "Copy Context for LLM" and what is said about its answer. No vscode import: the
// unit tests run this module in plain Node.

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

// What ctxmap.context is asked about: a selection, the comment or section under the cursor (the server
// finds it), or plain text.
export type Target = { uri: string; range: Range } | { uri: string; position: Position } | { text: string };

export interface Settings {
  budget: number;
  format: string;
  tokenizer: string;
  fill: boolean;
  embedding?: Embedding;
}

// The model that embeds code for the vector signal; the server checks the values and says what is wrong.
export interface Embedding {
  provider?: string;
  url?: string;
  model?: string;
  apiKeyEnv?: string;
  dimensions?: number;
}

export type ContextArgs = Target & { budget: number; format: string; fill: boolean };

// The parts of the server's pack this extension reads.
export interface PackItem {
  kind: string;
  path: string;
  symbol?: string;
}

export interface Pack {
  tokens: number;
  budget: number;
  items: PackItem[];
  text: string;
}

export interface PackSummary {
  tokens: number;
  files: number; // files whose code the pack shows
  whole: number; // of them, shown whole
  definitions: number; // definitions shown: the ranked ones, their tests and their callers
  outlined: number; // files only outlined
}

// The editor as seen by the command: the document, whether the server can read it (a saved file inside
// the workspace), the selection and the text it covers.
export interface EditorState {
  uri: string;
  inWorkspace: boolean;
  selection: Range;
  active: Position;
  selectedText: string;
}

// A selection of blanks says nothing: ask about what is under the cursor instead. A document the server
// cannot read (untitled, outside the workspace) is sent as its selected text; with nothing selected
// there is nothing to ask about.
export function targetFromEditor(editor: EditorState): Target | undefined {
  const blank = isEmpty(editor.selection) || editor.selectedText.trim() === '';
  if (!editor.inWorkspace) {
    return blank ? undefined : { text: editor.selectedText };
  }
  if (blank) {
    return { uri: editor.uri, position: copyPosition(editor.active) };
  }
  return { uri: editor.uri, range: { start: copyPosition(editor.selection.start), end: copyPosition(editor.selection.end) } };
}

// The arguments a command was run with: the server's code lens passes {uri, range}; other callers may
// pass {uri, position} or {text}. Anything else (the URI a context menu passes, nothing from a
// keybinding) is not a target: the editor's state is used.
export function targetFromArgs(arg: unknown): Target | undefined {
  if (typeof arg !== 'object' || arg === null) {
    return undefined;
  }
  const a = arg as Record<string, unknown>;
  if (typeof a.text === 'string' && a.text.trim() !== '' && a.uri === undefined) {
    return { text: a.text };
  }
  if (typeof a.uri !== 'string' || a.uri === '') {
    return undefined;
  }
  if (isRange(a.range)) {
    return { uri: a.uri, range: { start: copyPosition(a.range.start), end: copyPosition(a.range.end) } };
  }
  if (isPosition(a.position)) {
    return { uri: a.uri, position: copyPosition(a.position) };
  }
  return undefined;
}

export function contextArgs(target: Target, settings: Settings): ContextArgs {
  return { ...target, budget: settings.budget, format: settings.format, fill: settings.fill };
}

// The answer is checked before anything reaches the clipboard: a server of another version may answer
// differently, and the user should hear that rather than get "undefined" pasted.
export function parsePack(answer: unknown): Pack {
  if (typeof answer !== 'object' || answer === null) {
    throw new Error(`the server answered ${answer === null ? 'null' : typeof answer} instead of a context pack`);
  }
  const a = answer as Record<string, unknown>;
  if (typeof a.text !== 'string') {
    throw new Error('the server\'s context pack has no text');
  }
  const items: PackItem[] = [];
  if (Array.isArray(a.items)) {
    for (const it of a.items) {
      if (typeof it === 'object' && it !== null && typeof it.path === 'string' && typeof it.kind === 'string') {
        items.push({ kind: it.kind, path: it.path, symbol: typeof it.symbol === 'string' ? it.symbol : undefined });
      }
    }
  }
  return {
    tokens: typeof a.tokens === 'number' ? a.tokens : 0,
    budget: typeof a.budget === 'number' ? a.budget : 0,
    items,
    text: a.text,
  };
}

const definitionKinds = new Set(['definition', 'test', 'caller']);

// summarisePack counts what a pack shows as the Neovim plugin does (commands.lua, M.summary).
export function summarisePack(pack: Pack): PackSummary {
  const shown = new Set(pack.items.filter((it) => it.kind !== 'outline').map((it) => it.path));
  const outlined = new Set(pack.items.filter((it) => it.kind === 'outline' && !shown.has(it.path)).map((it) => it.path));
  return {
    tokens: pack.tokens,
    files: shown.size,
    whole: pack.items.filter((it) => it.kind === 'file').length,
    definitions: pack.items.filter((it) => definitionKinds.has(it.kind)).length,
    outlined: outlined.size,
  };
}

// "Copied 7,842 tokens: 6 files (2 whole), 14 definitions, 12 outlined"; a pack of whole files does
// not say "0 definitions".
export function copiedMessage(s: PackSummary): string {
  let files = count(s.files, 'file');
  if (s.whole > 0) {
    files += ` (${formatNumber(s.whole)} whole)`;
  }
  const parts = [files];
  if (s.definitions > 0 || s.whole === 0) {
    parts.push(count(s.definitions, 'definition'));
  }
  if (s.outlined > 0) {
    parts.push(`${formatNumber(s.outlined)} outlined`);
  }
  return `Copied ${count(s.tokens, 'token')}: ${parts.join(', ')}`;
}

// An untitled document for "Show Context": XML packs read better as XML; Markdown otherwise (a JSON
// pack's text is Markdown too).
export function languageFor(format: string): string {
  return format === 'xml' ? 'xml' : 'markdown';
}

export function count(n: number, singular: string, plural = singular + 's'): string {
  return `${formatNumber(n)} ${n === 1 ? singular : plural}`;
}

// Fixed grouping so that the message reads the same on every machine: 1,234.
export function formatNumber(n: number): string {
  return new Intl.NumberFormat('en-US').format(n);
}

function isEmpty(r: Range): boolean {
  return r.start.line === r.end.line && r.start.character === r.end.character;
}

function isPosition(p: unknown): p is Position {
  if (typeof p !== 'object' || p === null) {
    return false;
  }
  const q = p as Record<string, unknown>;
  return isIndex(q.line) && isIndex(q.character);
}

function isRange(r: unknown): r is Range {
  if (typeof r !== 'object' || r === null) {
    return false;
  }
  const q = r as Record<string, unknown>;
  return isPosition(q.start) && isPosition(q.end);
}

function isIndex(n: unknown): boolean {
  return typeof n === 'number' && Number.isInteger(n) && n >= 0;
}

// Only line and character: a vscode.Position carries more, and the server wants plain LSP JSON.
function copyPosition(p: Position): Position {
  return { line: p.line, character: p.character };
}

import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EditorState, contextArgs, copiedMessage, formatNumber, languageFor, parsePack, summarisePack, targetFromArgs, targetFromEditor } from '../context';

const uri = 'file:///work/app/rules/index.go';

function editor(over: Partial<EditorState>): EditorState {
  const at = { line: 4, character: 7 };
  return { uri, inWorkspace: true, selection: { start: at, end: at }, active: at, selectedText: '', ...over };
}

describe('targetFromEditor', () => {
  it('sends the selection as a range, start before end whichever way it was made', () => {
    // A selection made upwards: vscode's Selection has start <= end and active at the start.
    const sel = { start: { line: 2, character: 0 }, end: { line: 5, character: 12 } };
    const t = targetFromEditor(editor({ selection: sel, active: sel.start, selectedText: 'Rules are not reloaded\nafter a profile change' }));
    assert.deepEqual(t, { uri, range: sel });
  });

  it('sends the cursor position when nothing is selected, so the server finds the comment', () => {
    const t = targetFromEditor(editor({ active: { line: 9, character: 3 }, selection: { start: { line: 9, character: 3 }, end: { line: 9, character: 3 } } }));
    assert.deepEqual(t, { uri, position: { line: 9, character: 3 } });
  });

  it('treats a selection of blanks as no selection', () => {
    const sel = { start: { line: 1, character: 0 }, end: { line: 3, character: 0 } };
    const t = targetFromEditor(editor({ selection: sel, active: sel.end, selectedText: '  \n\t\n' }));
    assert.deepEqual(t, { uri, position: sel.end });
  });

  it('sends the selected text of a document the server cannot read', () => {
    const sel = { start: { line: 0, character: 0 }, end: { line: 0, character: 30 } };
    const t = targetFromEditor(editor({ uri: 'untitled:Untitled-1', inWorkspace: false, selection: sel, selectedText: 'crash when the quality profile is empty' }));
    assert.deepEqual(t, { text: 'crash when the quality profile is empty' });
  });

  it('has nothing to ask about in such a document without a selection', () => {
    assert.equal(targetFromEditor(editor({ uri: 'untitled:Untitled-1', inWorkspace: false })), undefined);
  });

  it('keeps only line and character of the positions it is given', () => {
    const active = { line: 3, character: 1, isBefore: () => false } as unknown as { line: number; character: number };
    const t = targetFromEditor(editor({ active, selection: { start: active, end: active } }));
    assert.deepEqual(JSON.parse(JSON.stringify(t)), { uri, position: { line: 3, character: 1 } });
  });
});

describe('targetFromArgs', () => {
  it('takes the code lens argument {uri, range}', () => {
    const range = { start: { line: 10, character: 1 }, end: { line: 12, character: 40 } };
    assert.deepEqual(targetFromArgs({ uri, range }), { uri, range });
  });

  it('takes {uri, position} and {text}', () => {
    assert.deepEqual(targetFromArgs({ uri, position: { line: 0, character: 0 } }), { uri, position: { line: 0, character: 0 } });
    assert.deepEqual(targetFromArgs({ text: 'gist create fails' }), { text: 'gist create fails' });
  });

  it('ignores what is not a target: nothing, a context-menu URI, broken ranges', () => {
    assert.equal(targetFromArgs(undefined), undefined);
    assert.equal(targetFromArgs(null), undefined);
    assert.equal(targetFromArgs('file:///x.go'), undefined);
    assert.equal(targetFromArgs({ scheme: 'file', path: '/work/app/x.go', fsPath: '/work/app/x.go' }), undefined);
    assert.equal(targetFromArgs({ uri, range: { start: { line: -1, character: 0 }, end: { line: 2, character: 0 } } }), undefined);
    assert.equal(targetFromArgs({ uri, range: { start: { line: 1.5, character: 0 }, end: { line: 2, character: 0 } } }), undefined);
    assert.equal(targetFromArgs({ uri, range: { start: { line: 1 } } }), undefined);
    assert.equal(targetFromArgs({ uri: '', position: { line: 0, character: 0 } }), undefined);
    assert.equal(targetFromArgs({ text: '   ' }), undefined);
  });
});

describe('contextArgs', () => {
  it('adds the budget and format from the settings', () => {
    const range = { start: { line: 1, character: 0 }, end: { line: 2, character: 5 } };
    assert.deepEqual(contextArgs({ uri, range }, { budget: 2000, format: 'xml', tokenizer: 'cl100k_base', fill: true }), { uri, range, budget: 2000, format: 'xml', fill: true });
  });
});

describe('summarising a pack', () => {
  const answer = {
    query: 'rules are not reloaded',
    budget: 8000,
    tokens: 7842,
    tokenizer: 'o200k_base',
    items: [
      { kind: 'definition', path: 'rules/index.go', symbol: 'RuleIndex', startLine: 3, endLine: 40 },
      { kind: 'definition', path: 'rules/index.go', symbol: 'RuleIndex.Reload', startLine: 42, endLine: 60 },
      { kind: 'caller', path: 'profile/service.go', symbol: 'Service.Change', startLine: 10, endLine: 30 },
      { kind: 'test', path: 'rules/index_test.go', symbol: 'TestReload', startLine: 5, endLine: 20 },
      { kind: 'definition', path: 'profile/profile.go', symbol: 'QualityProfile', startLine: 1, endLine: 12 },
      { kind: 'import', path: 'rules/index.go', startLine: 1, endLine: 2 },
    ],
    text: '# Context\n...',
  };

  it('counts distinct shown paths as files, and definitions with their tests and callers', () => {
    assert.deepEqual(summarisePack(parsePack(answer)), { tokens: 7842, files: 4, whole: 0, definitions: 5, outlined: 0 });
  });

  it('counts whole files and outlined files apart', () => {
    const p = parsePack({
      tokens: 4429,
      text: 'x',
      items: [
        { kind: 'file', path: 'cart/cart.go' },
        { kind: 'file', path: 'cart/total.go' },
        { kind: 'test', path: 'cart/cart_test.go', symbol: 'TestTotal' },
        { kind: 'outline', path: 'cart/total.go' },
        { kind: 'outline', path: 'order/order.go' },
        { kind: 'outline', path: 'order/cancel.go' },
      ],
    });
    assert.deepEqual(summarisePack(p), { tokens: 4429, files: 3, whole: 2, definitions: 1, outlined: 2 });
    assert.equal(copiedMessage(summarisePack(p)), 'Copied 4,429 tokens: 3 files (2 whole), 1 definition, 2 outlined');
  });

  it('says it the way the notification shows it', () => {
    assert.equal(copiedMessage(summarisePack(parsePack(answer))), 'Copied 7,842 tokens: 4 files, 5 definitions');
    assert.equal(copiedMessage({ tokens: 1, files: 1, whole: 0, definitions: 1, outlined: 0 }), 'Copied 1 token: 1 file, 1 definition');
    assert.equal(copiedMessage({ tokens: 0, files: 0, whole: 0, definitions: 0, outlined: 0 }), 'Copied 0 tokens: 0 files, 0 definitions');
    // a pack of whole files does not say it shows no definitions
    assert.equal(copiedMessage({ tokens: 900, files: 2, whole: 2, definitions: 0, outlined: 12 }), 'Copied 900 tokens: 2 files (2 whole), 12 outlined');
  });

  it('refuses an answer without text instead of copying nothing', () => {
    assert.throws(() => parsePack(null), /null instead of a context pack/);
    assert.throws(() => parsePack('pack'), /string instead of a context pack/);
    assert.throws(() => parsePack({ tokens: 3, items: [] }), /has no text/);
  });

  it('skips malformed items and keeps the rest', () => {
    const p = parsePack({ tokens: 10, text: 'x', items: [null, { kind: 'definition' }, { path: 'a.go', kind: 'definition' }, 7] });
    assert.deepEqual(summarisePack(p), { tokens: 10, files: 1, whole: 0, definitions: 1, outlined: 0 });
  });
});

describe('formatting', () => {
  it('groups thousands the same on every machine', () => {
    assert.equal(formatNumber(1234567), '1,234,567');
    assert.equal(formatNumber(999), '999');
  });

  it('opens XML packs as XML and everything else as Markdown', () => {
    assert.equal(languageFor('xml'), 'xml');
    assert.equal(languageFor('markdown'), 'markdown');
    assert.equal(languageFor('json'), 'markdown');
  });
});

import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkPicks, chunkSelection, entityPicks, insideRoot, parseEntities, parseExploration } from '../explore';

describe('entities', () => {
  it('reads files as a list of paths or as a number', () => {
    const got = parseEntities([
      { name: 'RULE', importance: 1, files: ['rules/rule.go', 'rules/index.go'], related: [] },
      { name: 'QUALITY_PROFILE', importance: 0.8234, files: 1 },
      { name: 'GIST', importance: 0.7, fileCount: 25, files: ['a.go', 'b.go'] },
      { name: '', importance: 0.5, files: 3 },
      'GIST',
    ]);
    assert.deepEqual(got, [
      { name: 'RULE', importance: 1, files: 2 },
      { name: 'QUALITY_PROFILE', importance: 0.8234, files: 1 },
      { name: 'GIST', importance: 0.7, files: 25 },
    ]);
  });

  it('refuses an answer that is not a list', () => {
    assert.throws(() => parseEntities({ entities: [] }), /list of entities/);
  });

  it('shows importance and files in the pick', () => {
    const picks = entityPicks([{ name: 'QUALITY_PROFILE', importance: 0.8234, files: 1 }, { name: 'RULE', importance: 1, files: 1234 }]);
    assert.deepEqual(
      picks.map((p) => [p.label, p.description, p.value]),
      [
        ['QUALITY_PROFILE', '0.82 · 1 file', 'QUALITY_PROFILE'],
        ['RULE', '1.00 · 1,234 files', 'RULE'],
      ],
    );
  });
});

describe('exploration', () => {
  const answer = {
    entity: { name: 'GIST', importance: 0.9, files: ['pkg/cmd/gist/create.go'] },
    chunks: [
      { path: 'pkg/cmd/gist/create.go', symbol: 'createRun', kind: 'function', startLine: 120, endLine: 180, mentions: 7 },
      { path: 'pkg/cmd/gist/shared.go', kind: 'file', startLine: 1, endLine: 1, mentions: 1 },
      { path: '', symbol: 'lost', startLine: 3, endLine: 4 },
    ],
  };

  it('takes the entity name from an object or a string and skips chunks without a path', () => {
    const x = parseExploration(answer);
    assert.equal(x.entity, 'GIST');
    assert.equal(x.chunks.length, 2);
    assert.equal(parseExploration({ entity: 'GIST', chunks: [] }).entity, 'GIST');
  });

  it('labels chunks by symbol, else path, with the line span', () => {
    const picks = chunkPicks(parseExploration(answer));
    assert.deepEqual(
      picks.map((p) => [p.label, p.description, p.detail]),
      [
        ['createRun', 'pkg/cmd/gist/create.go:120-180', 'function · 7 mentions'],
        ['pkg/cmd/gist/shared.go', 'pkg/cmd/gist/shared.go:1', 'file · 1 mention'],
      ],
    );
  });

  it('opens at 0-based lines, never before the first or a reversed span', () => {
    const x = parseExploration({ chunks: [{ path: 'a.go', startLine: 0, endLine: -5 }, { path: 'b.go', startLine: 10, endLine: 12 }] });
    assert.deepEqual(chunkSelection(x.chunks[0]), { startLine: 0, endLine: 0 });
    assert.deepEqual(chunkSelection(x.chunks[1]), { startLine: 9, endLine: 11 });
  });

  it('opens only paths inside the workspace', () => {
    assert.ok(insideRoot('pkg/cmd/gist/create.go'));
    assert.ok(insideRoot('a..b/c.go'));
    assert.ok(!insideRoot('../secrets.txt'));
    assert.ok(!insideRoot('pkg/../../x'));
    assert.ok(!insideRoot('/etc/passwd'));
    assert.ok(!insideRoot('C:\\Windows\\x'));
    assert.ok(!insideRoot(''));
  });
});

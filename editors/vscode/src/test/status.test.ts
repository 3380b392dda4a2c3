import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ago, parseStatus, stateFromStatus, statusDetails, statusText, statusTooltip } from '../status';

const ready = { ready: true, indexing: false, files: 1234, definitions: 5678, entities: 87, lastUpdate: '2025-01-02T03:04:05Z', root: '/work/app', vectors: 'glove-6b-100d-int8/v1' };

describe('status bar', () => {
  it('shows indexing progress, rounded and clamped', () => {
    assert.equal(statusText({ kind: 'indexing', percentage: 45.4 }), 'ctxmap: indexing 45%');
    assert.equal(statusText({ kind: 'indexing', percentage: 130 }), 'ctxmap: indexing 100%');
    assert.equal(statusText({ kind: 'indexing' }), 'ctxmap: indexing');
    assert.equal(statusTooltip({ kind: 'indexing', message: '1,234/5,678 files' }), 'Indexing the workspace: 1,234/5,678 files');
  });

  it('shows the counts once the server is ready', () => {
    assert.equal(statusText(stateFromStatus(parseStatus(ready))), 'ctxmap: 1,234 files, 87 entities');
    assert.equal(statusText(stateFromStatus(parseStatus({ ...ready, files: 1, entities: 1 }))), 'ctxmap: 1 file, 1 entity');
  });

  it('keeps indexing while the server is not ready or still indexing', () => {
    assert.equal(stateFromStatus(parseStatus({ ...ready, ready: false })).kind, 'indexing');
    assert.equal(stateFromStatus(parseStatus({ ...ready, indexing: true })).kind, 'indexing');
  });

  it('stops waiting when the index failed, and says why', () => {
    const state = stateFromStatus(parseStatus({ ...ready, ready: false, error: 'walk /work/app: permission denied' }));
    assert.equal(state.kind, 'failed');
    assert.equal(statusText(state), 'ctxmap: index failed');
    assert.match(statusTooltip(state), /permission denied/);
  });

  it('says why it stopped', () => {
    const s = { kind: 'stopped' as const, reason: 'ctxmap is not on PATH' };
    assert.equal(statusText(s), 'ctxmap: stopped');
    assert.equal(statusTooltip(s), 'ctxmap is not on PATH');
  });
});

describe('status answer', () => {
  it('reads missing or wrong fields as empty', () => {
    assert.deepEqual(parseStatus({ ready: 'yes', files: -3, definitions: 2.7 }), {
      ready: false, indexing: false, files: 0, definitions: 2, entities: 0, lastUpdate: '', root: '', vectors: '', error: '',
    });
    assert.throws(() => parseStatus(null), /did not answer a status/);
  });

  it('details everything in one line', () => {
    const now = new Date(Date.parse(ready.lastUpdate) + 3 * 60_000 + 10_000);
    assert.equal(
      statusDetails(parseStatus(ready), now),
      'ctxmap: ready · 1,234 files, 5,678 definitions, 87 entities · root /work/app · vectors glove-6b-100d-int8/v1 · updated 3 min ago',
    );
    assert.match(statusDetails(parseStatus({ ...ready, error: 'disk full' }), now), / · error: disk full$/);
    assert.match(statusDetails(parseStatus({ ...ready, vectors: 'off: disabled in the configuration' }), now), / · vectors off: disabled in the configuration · /);
  });

  it('says how long ago the index changed, and nothing for an unset time', () => {
    const t = Date.parse('2025-01-02T03:04:05.123456789Z');
    assert.equal(ago('2025-01-02T03:04:05.123456789Z', new Date(t + 12_000)), '12 s ago');
    assert.equal(ago('2025-01-02T03:04:05Z', new Date(t + 2 * 3600_000)), '2 h ago');
    assert.equal(ago('2025-01-02T03:04:05Z', new Date(t + 3 * 86400_000)), 'on 2025-01-02');
    assert.equal(ago('0001-01-01T00:00:00Z', new Date(t)), '');
    assert.equal(ago('', new Date(t)), '');
  });
});

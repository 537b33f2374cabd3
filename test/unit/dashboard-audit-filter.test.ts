/**
 * The Audit log page's pure parts: the filters of its query (days as UTC instants, the last day included,
 * refusals naming the field), the organisation's chain verified alone (another organisation's broken chain
 * is not its own), and the JSON block the charts read (nothing in it can close the element).
 */
import assert from 'node:assert/strict';
import { auditFilter, verifyOrg } from '../../src/server/dashboard/auditPage';
import { parseDay } from '../../src/server/dashboard/dayField';
import { jsonBlock } from '../../src/server/dashboard/usagePage';
import { chainAfter, GENESIS_HASH } from '../../src/server/storage/audit';

const NOW = Date.parse('2026-11-28T05:00:00.000Z');

describe('dashboard audit log: filters and the chain', () => {
  it('days become instants (the last day included); the default is the retention', () => {
    const f = auditFilter(
      new URLSearchParams('actor=person:p1&action=key.created&key=key_1&from=2026-11-01&to=2026-11-02'),
      'org1',
      NOW,
      365,
    );
    assert.ok(!('code' in f));
    assert.deepEqual(f.filter, {
      orgId: 'org1',
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-11-03T00:00:00.000Z',
      actor: 'person:p1',
      action: 'key.created',
      keyId: 'key_1',
    });
    const d = auditFilter(new URLSearchParams(''), 'org1', NOW, 10);
    assert.ok(!('code' in d));
    assert.deepEqual(d.filter, { orgId: 'org1', from: '2026-11-18T05:00:00.000Z', to: '2026-11-28T05:00:00.001Z' });
  });

  it('refuses a day that is no date, days in the wrong order, odd characters', () => {
    assert.deepEqual(auditFilter(new URLSearchParams('from=2026-13-01'), 'o', NOW, 365), { field: 'from', code: 'day' });
    assert.deepEqual(auditFilter(new URLSearchParams('to=2026-02-30'), 'o', NOW, 365), { field: 'to', code: 'day' });
    assert.deepEqual(auditFilter(new URLSearchParams('from=2026-11-02&to=2026-11-01'), 'o', NOW, 365), { field: 'from', code: 'order' });
    assert.deepEqual(auditFilter(new URLSearchParams("actor=x' OR 1=1"), 'o', NOW, 365), { field: 'actor', code: 'token' });
  });

  it('reads days as the page writes them (French: day first), kept as ISO for the export', () => {
    const fr = (d: string) => parseDay(d, 'fr');
    const f = auditFilter(new URLSearchParams('from=01/11/2026&to=2.11.2026'), 'o', NOW, 365, fr);
    assert.ok(!('code' in f));
    assert.deepEqual(
      [f.shown.from, f.shown.to, f.filter.from, f.filter.to],
      ['2026-11-01', '2026-11-02', '2026-11-01T00:00:00.000Z', '2026-11-03T00:00:00.000Z'],
    );
    assert.deepEqual(auditFilter(new URLSearchParams('from=11/30/2026'), 'o', NOW, 365, fr), { field: 'from', code: 'day' });
  });

  it("verifies one organisation's chain only", () => {
    const e = (i: number) => ({
      at: `2026-11-0${i}T00:00:00.000Z`,
      actor: 'master',
      action: 'key.created',
      target: `k${i}`,
      ip: null,
      outcome: 'success',
    });
    const a = chainAfter({ seq: 0, hash: GENESIS_HASH }, 'org_a', [e(1), e(2)]);
    const b = chainAfter({ seq: 0, hash: GENESIS_HASH }, 'org_b', [e(1), e(2)]);
    b[1] = { ...b[1]!, target: 'altered' };
    const all = {
      entries: [...a, ...b],
      anchors: [],
      heads: [
        { org_id: 'org_a', seq: 2, hash: a[1]!.hash },
        { org_id: 'org_b', seq: 2, hash: b[1]!.hash },
      ],
    };
    assert.deepEqual(verifyOrg(all, 'org_a'), { ok: true, entries: 2, chains: 1 });
    assert.equal(verifyOrg(all, 'org_b').broken?.seq, 2);
  });

  it('a JSON block cannot be closed by what it holds', () => {
    const out = jsonBlock('d', { label: '</script><script>alert(1)</script>&\u2028' }).value;
    assert.equal(out.match(/<\/script>/g)?.length, 1, 'only the block itself closes');
    assert.ok(out.startsWith('<script type="application/json" id="d">'));
    const inner = out.slice(out.indexOf('>') + 1, out.lastIndexOf('</script>'));
    assert.deepEqual(JSON.parse(inner), { label: '</script><script>alert(1)</script>&\u2028' });
  });
});

/** docs/server.md's metrics table lists every label value the service exports for its closed sets, and no other. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Tallies } from '../../src/server/counters';
import { serviceMetrics } from '../../src/server/http/metrics';

const SERVER_MD = readFileSync(path.join(__dirname, '..', '..', 'docs', 'server.md'), 'utf8');

/** The label values the table's row of `metric` lists (`` `label`: `a`, `b` ``), in order. */
function documented(metric: string, label: string): string[] {
  const row = SERVER_MD.split('\n').find((l) => l.startsWith(`| \`${metric}\` |`));
  assert.ok(row, `docs/server.md has a row for ${metric}`);
  const labels = row.split(' | ')[2]!;
  assert.ok(labels.startsWith(`\`${label}\`: `), `${metric}: the labels column names ${label}: ${labels}`);
  return [...labels.slice(label.length + 4).matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

/** The label values the service's registry exports for `metric`, in order. */
async function exported(metric: string, label: string): Promise<string[]> {
  const registry = serviceMetrics({
    tallies: new Tallies(),
    live: () => ({ live: 0, connected: 0, backlogMs: 0, worstBacklogMs: 0 }),
    connections: () => 0,
    engineBusy: () => false,
    readiness: async () => ({ ready: true, draining: false, backends: {} }),
  });
  const m = registry.getSingleMetric(metric);
  assert.ok(m, `the service exports ${metric}`);
  return (await m.get()).values.map((v) => String(v.labels[label]));
}

describe('metrics: docs/server.md lists the label values the service exports', () => {
  for (const [metric, label] of [
    ['dictee_sessions_ended_total', 'reason'],
    ['dictee_transcript_events_total', 'type'],
  ] as const) {
    it(`${metric}: every ${label}`, async () => {
      assert.deepEqual(documented(metric, label), await exported(metric, label));
    });
  }
});

import assert from 'node:assert/strict';
import { SINK_EVENT, sinkEventsPerFrame } from '../../bench/baselineServers';
import { type CostSample, costMarkdown, costRounds, median, pairedRatios, quartiles } from '../../bench/cpuCost';
import { sectionProblems } from '../../bench/guard';

const sample = (target: string, round: number, cpuMs: number): CostSample => ({ target, round, cpuMs, load: 3, others: 1.2 });

describe('server bench: CPU cost rounds', () => {
  it('runs every target once a round, the order rotated every round, and keeps no warm-up', async () => {
    const order: string[] = [];
    const targets = [{ label: 'service' }, { label: 'echo' }, { label: 'service before' }];
    const samples = await costRounds(
      targets,
      2,
      async (t) => {
        order.push(t.label);
        return { cpuMs: order.length, others: 0.5 };
      },
      () => undefined,
    );
    assert.deepEqual(order, [
      ...['service', 'echo', 'service before'], // warm-up
      ...['echo', 'service before', 'service'],
      ...['service before', 'service', 'echo'],
    ]);
    assert.deepEqual(
      samples.map((s) => [s.target, s.round, s.cpuMs]),
      [
        ['echo', 1, 4],
        ['service before', 1, 5],
        ['service', 1, 6],
        ['service before', 2, 7],
        ['service', 2, 8],
        ['echo', 2, 9],
      ],
    );
  });

  it('reports nothing where the kernel gives no CPU time (not Linux)', async () => {
    assert.deepEqual(
      await costRounds(
        [{ label: 'service' }],
        3,
        async () => undefined,
        () => undefined,
      ),
      [],
    );
  });

  it('medians, quartiles and ratios paired by round', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.deepEqual(quartiles([1, 2, 3, 4, 5, 6]), [2, 5]);
    const samples = [
      sample('service', 1, 0.75),
      sample('echo', 1, 0.5),
      sample('echo', 2, 0.5),
      sample('service', 2, 0.5),
      sample('service', 3, 1),
    ];
    // Round 3 has no echo: it has no ratio.
    assert.deepEqual(pairedRatios(samples, 'service', 'echo'), [1.5, 1]);
  });

  it('writes the sentence others read, with the spread, the load and the ratios, and passes the guard', () => {
    const samples = [1, 2, 3, 4].flatMap((r) => [
      sample('service', r, 0.3 + r / 100),
      sample('echo', r, 0.25),
      sample('service before', r, 0.31),
    ]);
    const cost = costMarkdown(samples, { sessions: 400, rounds: 4, seconds: 12, before: '2a786e3' });
    const text = cost.lines.join('\n');
    assert.match(
      text,
      /\*\*Service 0\.325 CPU ms per session-second \(rounds: 0\.310, 0\.320, 0\.330, 0\.340; 0\.310–0\.340, middle half 0\.315–0\.335\); echo 0\.250/,
    );
    assert.match(text, /Ratio service \/ echo: 1\.30 \(per round: 1\.24, 1\.28, 1\.32, 1\.36\)/);
    assert.match(text, /load average 3\.00–3\.00 \(median 3\.00\) on \d+ cores; other processes .* kept 1\.20 cores busy/);
    assert.match(text, /built from 2a786e3, in the same rounds: 0\.310 CPU ms per session-second/);
    assert.ok(Math.abs(cost.ratios['CPU service / echo']! - 1.3) < 1e-9);
    assert.ok(Math.abs(cost.ratios['CPU service now / before']! - 0.325 / 0.31) < 1e-9);
    assert.deepEqual(sectionProblems({ title: 't', markdown: text, samples: cost.samples, ratios: cost.ratios }), []);
  });

  it('with the sink in the rounds: its figure, its ratio to the echo and the service over it, paired by round', () => {
    const samples = [1, 2, 3].flatMap((r) => [sample('service', r, 0.6), sample('echo', r, 0.5), sample('sink', r, 0.3 + r / 100)]);
    const cost = costMarkdown(samples, { sessions: 400, rounds: 3, seconds: 12 });
    const text = cost.lines.join('\n');
    assert.match(text, /Ratio service \/ echo: 1\.20/, 'the sentence others read is kept');
    assert.match(
      text,
      /same rounds: 0\.320 CPU ms per session-second \(rounds:\n0\.310, 0\.320, 0\.330; 0\.310–0\.330, middle half 0\.310–0\.330\), 0\.64× the echo/,
    );
    assert.match(text, /\*\*Ratio service \/ sink: 1\.88\*\*\n\(per round: 1\.94, 1\.88, 1\.82\)/);
    assert.ok(Math.abs(cost.ratios['CPU service / sink']! - 0.6 / 0.32) < 1e-9);
    assert.equal(cost.samples['CPU rounds, sink'], 3);
    assert.deepEqual(sectionProblems({ title: 't', markdown: text, samples: cost.samples, ratios: cost.ratios }), []);
    // Without sink rounds, no sink line and no sink ratio.
    const without = costMarkdown(
      samples.filter((x) => x.target !== 'sink'),
      { sessions: 400, rounds: 3, seconds: 12 },
    );
    assert.doesNotMatch(without.lines.join('\n'), /sink/);
    assert.equal(without.ratios['CPU service / sink'], undefined);
  });

  it("the sink answers every fourth frame, and the bench's clients expect exactly those", () => {
    assert.deepEqual(sinkEventsPerFrame(9), [0, 0, 0, 1, 0, 0, 0, 1, 0]);
    assert.ok(SINK_EVENT.length > 150 && SINK_EVENT.length < 250, `an event of the service's size: ${SINK_EVENT.length} bytes`);
    assert.equal((JSON.parse(SINK_EVENT) as { type: string }).type, 'transcript');
  });

  it('a run without echo rounds fails the guard instead of writing a ratio that is not a number', () => {
    const cost = costMarkdown([sample('service', 1, 0.3)], { sessions: 400, rounds: 1, seconds: 12 });
    assert.notDeepEqual(sectionProblems({ title: 't', markdown: cost.lines.join('\n'), samples: cost.samples, ratios: cost.ratios }), []);
  });
});

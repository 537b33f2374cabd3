/**
 * The dictation grammar's cost per committed utterance: `DictationFormatter.commit` (commands,
 * hold-back, numbers, punctuation, typography) for runs of 10, 100 and 1,000 utterances taken from the
 * golden tables of the four languages, against the document's last 80 characters. Baseline in the same
 * run, over the same utterances: what the extension does to a final without the grammar — collapse
 * whitespace and `joinText` it against the same context.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { joinText } from '../src/client/format';
import { DictationFormatter } from '../src/dictation/stream';
import { LANGUAGES, type Language } from '../src/dictation/types';

interface Section {
  title: string;
  markdown: string;
}

function utterances(): Array<{ language: Language; text: string }> {
  const out: Array<{ language: Language; text: string }> = [];
  for (const language of LANGUAGES) {
    const tsv = readFileSync(path.join(__dirname, '..', 'test', 'fixtures', 'dictation', `${language}.tsv`), 'utf8');
    for (const line of tsv.split('\n')) {
      if (line === '' || line.startsWith('#')) continue;
      for (const u of line.split('\t')[0]!.split(' | ')) out.push({ language, text: u });
    }
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** One run of `n` utterances through the grammar; returns nanoseconds per utterance. */
function grammarRun(all: ReadonlyArray<{ language: Language; text: string }>, n: number, offset: number): number {
  const byLang = new Map<Language, DictationFormatter>(LANGUAGES.map((l) => [l, new DictationFormatter({ language: l })]));
  let doc = '';
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const u = all[(offset + i) % all.length]!;
    const f = byLang.get(u.language)!;
    const r = f.commit(`c${i}`, u.text, { before: doc.slice(-80), after: '' });
    doc = (doc + r.text).slice(-200);
    const h = f.flush({ before: doc.slice(-80), after: '' });
    if (h) doc = (doc + h.text).slice(-200);
  }
  return Number(process.hrtime.bigint() - t0) / n;
}

/** The same utterances with what the extension does today: whitespace collapsed, joinText against the context. */
function baselineRun(all: ReadonlyArray<{ language: Language; text: string }>, n: number, offset: number): number {
  let doc = '';
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const u = all[(offset + i) % all.length]!;
    const text = u.text.replace(/\s+/gu, ' ').trim();
    doc = (doc + joinText(doc.slice(-80), text, '')).slice(-200);
  }
  return Number(process.hrtime.bigint() - t0) / n;
}

const us = (ns: number): string => `${(ns / 1000).toFixed(2)} µs`;

export function run(): Promise<Section> {
  const all = utterances();
  // Warm-up of both paths.
  for (let k = 0; k < 5; k++) {
    grammarRun(all, 500, k * 97);
    baselineRun(all, 500, k * 97);
  }
  const rows: string[] = [];
  const medians: Array<{ g: number; b: number }> = [];
  const load = os.loadavg()[0]!;
  for (const n of [10, 100, 1000]) {
    const rounds = n === 1000 ? 15 : n === 100 ? 60 : 300;
    const g: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < rounds; r++) {
      // In alternation, so that machine load falls on both alike.
      g.push(grammarRun(all, n, r * 31));
      b.push(baselineRun(all, n, r * 31));
    }
    const gm = median(g);
    const bm = median(b);
    rows.push(`| ${n.toLocaleString('en')} | ${us(gm)} | ${us(bm)} | ${(gm / bm).toFixed(1)}× |`);
    medians.push({ g: gm, b: bm });
  }
  const growth = (k: 'g' | 'b'): string => (medians[medians.length - 1]![k] / medians[0]![k]).toFixed(2);
  return Promise.resolve({
    title: 'Dictation grammar (pure side)',
    markdown: [
      `\`DictationFormatter.commit\` (then \`flush\`) for each utterance of a run, the utterances taken in turn from`,
      `the golden tables of the four languages (${all.length} utterances: dictation, numbers, punctuation, commands),`,
      'formatted against the last 80 characters of the document. Baseline in the same run, over the same',
      'utterances: collapsing whitespace and `joinText` against the same context (the work a final costs',
      'without the grammar). Median of the rounds; the two are measured in alternation.',
      '',
      '| utterances in the run | grammar, per utterance | baseline, per utterance | ratio |',
      '|---:|---:|---:|---:|',
      ...rows,
      '',
      `From 10 to 1,000 utterances the grammar's cost per utterance changes ${growth('g')}× and the baseline's`,
      `${growth('b')}× (1-minute load average ${load.toFixed(1)} on ${os.cpus().length} cores when the section started; other`,
      'work on the machine moves both). Each utterance is formatted against a bounded context, so nothing',
      'scans the run. Both are far below the time a final takes to reach the editor; the end-to-end latency',
      'with the grammar on beside it off is in the section "End-to-end: service final → text in the VS Code editor".',
    ].join('\n'),
  });
}

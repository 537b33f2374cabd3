import assert from 'node:assert/strict';
import { parseWav } from '../../src/client/wav';
import { RunAudio, shownWords } from '../../src/client/proofreading/runAudio';
import { wavOf } from '../../src/shared/wavFile';
import { playerHtml } from '../../src/extension/proofreading/playerHtml';

/** `ms` milliseconds of 1 kHz-rate PCM whose samples count up from `from` (so that slices can be checked). */
function pcm(from: number, ms: number): Buffer {
  const b = Buffer.alloc(ms * 2);
  for (let i = 0; i < ms; i++) b.writeInt16LE(from + i, i * 2);
  return b;
}
const samples = (b: Buffer | undefined): number[] => (b ? Array.from({ length: b.length / 2 }, (_, i) => b.readInt16LE(i * 2)) : []);

describe("proofreading: a run's audio for Play Back", () => {
  it('gives the audio of a span of the session, across the parts it was sent in', () => {
    const a = new RunAudio(1000);
    a.append(pcm(0, 100));
    a.append(pcm(100, 100));
    assert.deepEqual(samples(a.slice(0, 95, 105)), [95, 96, 97, 98, 99, 100, 101, 102, 103, 104]);
    assert.equal(a.slice(0, 150, 400)?.length, 100, 'cut at what was received');
    assert.equal(a.slice(0, 300, 400), undefined);
    assert.equal(a.slice(0, 10, 10), undefined);
  });

  it('a new service session starts its times at the audio sent from then on', () => {
    const a = new RunAudio(1000);
    a.append(pcm(0, 100));
    a.beginGeneration();
    a.append(pcm(1000, 50));
    assert.equal(a.generation, 1);
    assert.deepEqual(samples(a.slice(1, 0, 3)), [1000, 1001, 1002]);
    assert.equal(a.slice(0, 90, 200)?.length, 20, 'a span of the first session stops where it ended');
    assert.equal(a.slice(2, 0, 10), undefined);
  });

  it('forgets the oldest audio past its bound', () => {
    const a = new RunAudio(1000, 300);
    for (let i = 0; i < 4; i++) a.append(pcm(i * 100, 100));
    assert.equal(a.bytes, 200);
    assert.equal(a.slice(0, 0, 50), undefined);
    assert.deepEqual(samples(a.slice(0, 300, 302)), [300, 301]);
  });

  it('writes a WAV the player reads, and the words with times relative to what plays', () => {
    const info = parseWav(wavOf(pcm(0, 10), 16000));
    assert.equal(info.sampleRate, 16000);
    assert.equal(info.channels, 1);
    assert.deepEqual(
      shownWords(
        'Le foie est',
        [{ text: 'le', start_ms: 1000, end_ms: 1200 }, { text: 'foie' }, { text: 'est', start_ms: 1300, end_ms: 1500 }],
        1000,
      ),
      [{ text: 'Le', startMs: 0, endMs: 200 }, { text: 'foie' }, { text: 'est', startMs: 300, endMs: 500 }],
    );
  });

  it('shows the sentence as it now reads in the document: a correction in place of the words it replaced, text added unlit', () => {
    const heard = [
      { text: 'The', start_ms: 1000, end_ms: 1200 },
      { text: 'mr', start_ms: 1200, end_ms: 1400 },
      { text: 'dashwood', start_ms: 1400, end_ms: 1900 },
      { text: 'had', start_ms: 1900, end_ms: 2100 },
      { text: 'then', start_ms: 2100, end_ms: 2300 },
      { text: 'left.', start_ms: 2300, end_ms: 2600 },
    ];
    // As written: the engine's words, in the document's form ("left." one word with its period).
    assert.deepEqual(
      shownWords(' The mr dashwood had then left.', heard, 1000).map((w) => [w.text, w.startMs, w.endMs]),
      [
        ['The', 0, 200],
        ['mr', 200, 400],
        ['dashwood', 400, 900],
        ['had', 900, 1100],
        ['then', 1100, 1300],
        ['left.', 1300, 1600],
      ],
    );
    // Corrected (Correct That wrote "guess would have been" over "dashwood had then"), and a word typed after it.
    assert.deepEqual(
      shownWords(' The mr guess would have been left. Later', heard, 1000).map((w) => [w.text, w.startMs, w.endMs]),
      [
        ['The', 0, 200],
        ['mr', 200, 400],
        ['guess', 400, 1300],
        ['would', 400, 1300],
        ['have', 400, 1300],
        ['been', 400, 1300],
        ['left.', 1300, 1600],
        ['Later', undefined, undefined],
      ],
    );
  });
});

describe('proofreading: the Play Back player', () => {
  it('loads nothing from outside: its own script by nonce, no media (the samples come in its messages); its words are escaped', () => {
    const html = playerHtml('vscode-resource:', 'abc123', {
      play: 'Play <again>',
      label: 'The "audio"',
      empty: 'Nothing <yet>',
      atCursor: 'Play <the cursor>',
    });
    assert.match(html, /default-src 'none'; style-src vscode-resource: 'unsafe-inline'; script-src 'nonce-abc123';/);
    assert.match(html, /<script nonce="abc123">/);
    // Empty, its button plays the sentence at the editor's cursor (the extension does: a message).
    assert.match(html, /<button id="again">Play &lt;the cursor&gt;<\/button>/);
    assert.match(html, /postMessage\(\{ type: 'playAtCursor' \}\)/);
    assert.match(html, /aria-label="The &quot;audio&quot;"/);
    // Before its first sentence (the panel showing it as the window opens), it says what it is for.
    assert.match(html, /aria-live="off">Nothing &lt;yet&gt;<\/div>/);
    assert.doesNotMatch(html, /https?:\/\//);
  });

  it('comes with the sentence that opens it: its samples in base64, its words unable to end the script', () => {
    const pcm = new Uint8Array([1, 0, 255, 127]);
    const words = [{ text: '</script><b>x</b>', startMs: 0, endMs: 10 }];
    const html = playerHtml(
      'vscode-resource:',
      'abc123',
      { play: 'Play', label: 'Audio', empty: '', atCursor: 'At cursor' },
      {
        type: 'play',
        pcm,
        sampleRate: 16000,
        startMs: 710,
        endMs: 720,
        words,
        askedAt: 5,
      },
    );
    assert.equal(html.match(/<\/script>/g)?.length, 1);
    assert.match(html, /<button id="again">Play<\/button>/);
    const first = JSON.parse(/const first = (.*);\n/.exec(html)![1]!) as {
      pcm: string;
      words: unknown;
      startMs: number;
      sampleRate: number;
    };
    assert.deepEqual([...Buffer.from(first.pcm, 'base64')], [...pcm]);
    assert.deepEqual(first.words, words);
    assert.equal(first.startMs, 710);
    assert.match(
      playerHtml('vscode-resource:', 'abc123', { play: 'Play', label: 'Audio', empty: '', atCursor: 'At cursor' }),
      /const first = null;/,
    );
  });
});

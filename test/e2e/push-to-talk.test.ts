/**
 * Push-to-talk (`dictee.mode: pushToTalk`) in real VS Code: the extension API has no key-release event,
 * so the key is taken as released when its auto-repeat stops (src/extension/holdDetector.ts). The key is
 * held through Chromium's input pipeline with auto-repeat keydowns every 33 ms (a common repeat rate)
 * while speech plays; the test measures the delay from the last repeat to the pause the extension logs,
 * and checks that no hold is cut short by a false release on this shared, loaded machine.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sleep, waitFor } from '../helpers/wait';
import { assertScriptPrefix, between } from './lib/checks';
import { AFTER, BEFORE, ensureKey, extensionLog, openReportAtFindings, sentences, stopAndSave, waitForState } from './lib/steps';
import { OUTPUT_DIR } from './lib/workbench';
import { dicteeSettings, getWorld, SCRIPT, useWorld, type World } from './lib/world';
import { UI } from './lib/ui';

useWorld();

const HOLDS = 3;
const REPEAT_MS = 33;
const REPEAT_DELAY_MS = 500;

/** The extension log's lines from `mark` on, with their times (the log's clock is this machine's). */
function logLines(w: World, mark: number): { at: number; text: string }[] {
  return extensionLog(w)
    .slice(mark)
    .split('\n')
    .map((l) => /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \[\w+\] (.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ at: new Date(m[1]!.replace(' ', 'T')).getTime(), text: m[2]! }));
}

describe('Push-to-talk: record while the key is held (auto-repeat, code-server, Chromium)', function () {
  this.timeout(300_000);
  let w: World;

  before(async function () {
    this.timeout(600_000);
    w = await getWorld();
    await ensureKey(w);
  });

  after(async () => {
    if (!w) return;
    const changed = extensionLog(w).split('settings changed').length;
    w.codeServer.writeSettings(dicteeSettings(w.service.url));
    await waitFor(() => extensionLog(w).split('settings changed').length > changed, 10_000, 'the toggle mode back').catch(() => undefined);
  });

  it('15. each hold records and pauses when the key is let go; the release delay is measured', async () => {
    const { wb, mic } = w;
    const changed = extensionLog(w).split('settings changed').length;
    w.codeServer.writeSettings(dicteeSettings(w.service.url, { 'dictee.mode': 'pushToTalk' }));
    await waitFor(() => extensionLog(w).split('settings changed').length > changed, 15_000, 'the extension to see dictee.mode');
    await openReportAtFindings(w);
    const mark = extensionLog(w).length;
    const words = SCRIPT.split('. ');
    const delays: number[] = [];
    // The editor has the focus with the cursor after "Findings:" (a click would move the cursor).
    for (let i = 0; i < HOLDS; i++) {
      for (const m of ['Control', 'Shift', 'Alt']) await wb.page.keyboard.down(m);
      await wb.page.keyboard.down('KeyD');
      await sleep(REPEAT_DELAY_MS);
      await waitForState(wb, UI.recording, 20_000).catch(async (e: unknown) => {
        await wb.page.keyboard.up('KeyD');
        throw e;
      });
      // Speak a sentence while the key repeats; keep holding a moment after it.
      const speech = await sentences(`${words[i]}.`, 800);
      const speaking = mic.playPcm(speech);
      let done = false;
      void speaking.then(() => (done = true));
      let last = Date.now();
      while (!done) {
        await wb.page.keyboard.down('KeyD');
        last = Date.now();
        await sleep(REPEAT_MS);
      }
      await wb.page.keyboard.up('KeyD');
      for (const m of ['Alt', 'Shift', 'Control']) await wb.page.keyboard.up(m);
      await waitForState(wb, UI.paused, 20_000);
      const release = await waitFor(() => logLines(w, mark).filter((l) => /^push-to-talk: release/.test(l.text))[i], 10_000, `release ${i + 1} in the log`);
      delays.push(release.at - last);
      if (i === 0) await wb.screenshot('15-push-to-talk-released');
    }
    const events = logLines(w, mark)
      .map((l) => /^push-to-talk: (\w+)/.exec(l.text)?.[1])
      .filter((e): e is string => e !== undefined);
    const releases = logLines(w, mark).filter((l) => /^push-to-talk: release/.test(l.text)).map((l) => l.text);
    writeFileSync(path.join(OUTPUT_DIR, '15-push-to-talk-delays.json'), JSON.stringify({ repeatMs: REPEAT_MS, delaysMs: delays, events, releases }, null, 2));
    // One press and one release per hold: no hold cut short by a false release, none latched.
    assert.deepEqual(events, Array.from({ length: HOLDS }, () => ['press', 'release']).flat(), `the events: ${events.join(', ')}`);
    for (const d of delays) assert.ok(d >= 0 && d < 1000, `release ${d} ms after the last repeat: ${delays.join(', ')}`);
    await stopAndSave(w);
    const dictated = between(readFileSync(w.reportPath, 'utf8'), BEFORE, AFTER);
    assertScriptPrefix(dictated, SCRIPT, 6, 'what was said while the key was held');
  });
});

/**
 * Scenario 8: no recorder on the machine. code-server (and so the extension host, which runs the
 * recorder) gets a PATH without sox, rec, play or arecord; starting dictation must say what to install.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startCodeServer, pathWithout, type CodeServer } from './lib/codeServer';
import { waitFor } from '../helpers/wait';
import { dicteeSettings, getWorld, useWorld } from './lib/world';
import { Workbench } from './lib/workbench';
import { LOCALE, UI } from './lib/ui';

useWorld();

describe('Dictée without a recorder installed', function () {
  this.timeout(240_000);
  let cs: CodeServer | undefined;
  let wb: Workbench | undefined;
  let pathDir: string | undefined;

  after(async () => {
    await wb?.close().catch(() => undefined);
    await cs?.stop();
    if (pathDir) rmSync(pathDir, { recursive: true, force: true });
  });

  it('8. sox not on PATH: a clear message saying what to install', async function () {
    this.timeout(300_000);
    const w = await getWorld();
    const p = pathWithout(['sox', 'rec', 'play', 'arecord']);
    pathDir = p.dir;
    // VS Code's server resolves the login shell's environment for the extension host (which would put
    // /usr/bin back on PATH) unless VSCODE_CLI is set.
    cs = await startCodeServer({
      vsix: w.vsix,
      folder: w.workspace,
      settings: dicteeSettings(w.service.url),
      env: { ...w.mic.env, PATH: p.PATH, VSCODE_CLI: '1' },
      locale: LOCALE,
    });
    const page = await Workbench.open(w.browser, cs.folderUrl);
    wb = page;
    w.resetReport();
    await wb.openFile('report.md');
    await wb.gotoLineEnd(5);
    await wb.runCommand(UI.startCommand);
    // This browser has no key stored yet: starting asks for one first.
    const message = await waitFor(
      async () => {
        if (await page.quickInputVisible()) await page.typeIntoInputBox(w.apiKey);
        return (await page.notifications()).find((x) => /\b(sox|recorder)\b/i.test(x.message))?.message;
      },
      30_000,
      'a message about the missing recorder',
      200,
    );
    await wb.screenshot('8-no-recorder');
    assert.match(message, UI.noRecorder, 'the message names the program');
    assert.match(message, /sudo apt-get install sox/, 'the message says how to install it');
  });
});

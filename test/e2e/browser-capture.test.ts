/**
 * Dictation through the capture page in real VS Code (code-server) in headless Chromium, with no
 * PulseAudio and no SoX on the extension host's PATH: Chromium's fake microphone plays spoken English
 * from a WAV file. The page is opened by the extension (asExternalUri + openExternal, so through
 * code-server's proxy), the dictated text lands in report.md, and closing the page pauses dictation.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startServer, type TestServer } from '../helpers/server';
import { silence, speechPcm } from '../helpers/speech';
import { waitFor } from '../helpers/wait';
import { pathWithout, startCodeServer, type CodeServer } from './lib/codeServer';
import { CHROMIUM, Workbench } from './lib/workbench';
import { extensionLogIn } from './lib/dictate';
import { dicteeSettings, firstPassWords, REPORT_INITIAL, SCRIPT, buildVsix, checkPrerequisites } from './lib/world';
import { LOCALE, UI } from './lib/ui';
import { wavOf } from '../../src/shared/wavFile';

describe('Dictée through the capture page (code-server, Chromium, no SoX)', function () {
  this.timeout(300_000);
  let tmp: string;
  let service: TestServer | undefined;
  let cs: CodeServer | undefined;
  let browser: Browser | undefined;
  let pathDir: string | undefined;

  after(async () => {
    await browser?.close().catch(() => undefined);
    await cs?.stop();
    await service?.kill();
    if (service) rmSync(service.dataDir, { recursive: true, force: true });
    if (pathDir) rmSync(pathDir, { recursive: true, force: true });
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('the page opens through the proxy, its audio is dictated into the report, closing it pauses; push-to-talk records while Space is held', async () => {
    checkPrerequisites();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'dictee-e2e-page-'));
    const script = path.join(tmp, 'script.txt');
    writeFileSync(script, SCRIPT);
    const audio = path.join(tmp, 'speech.wav');
    const speech = await speechPcm('Chest radiograph shows clear lungs. No pleural effusion is seen.');
    writeFileSync(audio, wavOf(Buffer.concat([silence(500), speech, silence(1500)]), 16000));
    service = await startServer({ script });
    const { key } = await service.createKey({ name: 'e2e', type: 'personal', environment: 'test', permissions: ['read', 'write'] });
    const workspace = path.join(tmp, 'workspace');
    mkdirSync(workspace);
    const report = path.join(workspace, 'report.md');
    writeFileSync(report, REPORT_INITIAL);
    const p = pathWithout(['sox', 'rec', 'play', 'arecord']);
    pathDir = p.dir;
    cs = await startCodeServer({
      vsix: buildVsix(),
      folder: workspace,
      settings: dicteeSettings(service.url, { 'dictee.audio.source': 'auto' }),
      env: { PATH: p.PATH, VSCODE_CLI: '1', PULSE_SERVER: 'unix:/nonexistent' },
      locale: LOCALE,
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-dev-shm-usage',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-audio-capture=${audio}`,
      ],
    });
    const wb = await Workbench.open(browser, cs.folderUrl);
    await wb.statusItem().first().waitFor({ state: 'visible', timeout: 60_000 });
    const status = async (): Promise<string> => (await wb.statusItems()).find((i) => /dictee\.status/i.test(i.id))?.label ?? '';
    const pages: Page[] = [];
    wb.page.context().on('page', (pg) => pages.push(pg));
    await wb.openFile('report.md');
    await wb.gotoLineEnd(5);
    await wb.runCommand(UI.startCommand);
    const capture = await waitFor(
      async () => {
        if (await wb.quickInputVisible()) await wb.typeIntoInputBox(key);
        return pages.find((pg) => pg.url().includes('/d/'));
      },
      60_000,
      'the capture page to open',
      200,
    ).catch(async (e: unknown) => {
      console.log(
        'pages:',
        pages.map((pg) => pg.url()),
        'notifications:',
        await wb.notifications(),
        'status:',
        await wb.statusItems(),
      );
      await wb.screenshot('browser-capture-no-page');
      throw e;
    });
    await capture.waitForLoadState();
    const url = new URL(capture.url());
    console.log(`      the capture page opened at ${url.origin}${url.pathname.replace(/\/d\/.*/, '/d/…')}`);
    assert.equal(url.origin, new URL(cs.url).origin, 'through code-server (its origin)');
    assert.match(url.pathname, /^\/proxy\/\d+\/d\//, "through code-server's proxy");
    // Dictation is already recording: the page records at once, or after a click where the browser
    // holds the sound back until the user acts in the page.
    await capture.click('h1');
    if (await capture.isEnabled('#start')) await capture.click('#start');
    await waitFor(async () => UI.recording.test(await status()), 60_000, 'the status bar says recording', 200);
    const words = firstPassWords(SCRIPT).slice(0, 3);
    await waitFor(
      async () => (await wb.editorLines()).join('\n').toLowerCase().includes(words.join(' ')) || undefined,
      90_000,
      'the dictated words in the editor',
      500,
    );
    await waitFor(async () => (await capture.textContent('#state')) === 'Enregistrement', 10_000, 'the page says recording, in French');
    await capture.close();
    await waitFor(async () => UI.paused.test(await status()), 30_000, 'closing the page pauses', 200);
    const told = await waitFor(
      async () => (await wb.notifications()).find((n) => /page de capture/.test(n.message))?.message,
      30_000,
      'the editor says the page was closed',
      200,
    );
    assert.match(told, /en pause/);
    await wb.runCommand(UI.stopCommand);
    await waitFor(async () => UI.idleOrError.test(await status()), 30_000, 'stopped', 200);
    await wb.save();
    assert.ok(readFileSync(report, 'utf8').toLowerCase().includes(words.join(' ')), 'the sentence is in report.md');

    // Push-to-talk: a new page (the run's settings), which records only while Space is held in it.
    const userDataDir = cs.userDataDir;
    const logMark = extensionLogIn(userDataDir).length;
    cs.writeSettings(dicteeSettings(service.url, { 'dictee.audio.source': 'auto', 'dictee.mode': 'pushToTalk' }));
    await waitFor(
      () => /settings: changed .*dictee\.mode/.test(extensionLogIn(userDataDir).slice(logMark)),
      15_000,
      'VS Code to read the new settings (the extension logs the names of those that changed)',
      100,
    );
    const before = pages.length;
    await wb.focusEditor();
    await wb.runCommand(UI.startCommand);
    const ptt = await waitFor(() => pages.slice(before).find((pg) => pg.url().includes('/d/')), 60_000, 'a new capture page', 200);
    await ptt.waitForLoadState();
    await waitFor(async () => !(await ptt.isHidden('#ptt')), 10_000, 'the page shows the push-to-talk key');
    await waitFor(async () => UI.paused.test(await status()), 60_000, 'with the key up, dictation is paused', 200);
    const lines = (await wb.editorLines()).join('\n');
    await ptt.click('h1');
    await ptt.keyboard.down('Space');
    await waitFor(async () => UI.recording.test(await status()), 30_000, 'holding Space records', 200);
    await waitFor(
      async () => (await wb.editorLines()).join('\n') !== lines || undefined,
      60_000,
      'words dictated while Space is held',
      500,
    );
    await ptt.keyboard.up('Space');
    await waitFor(async () => UI.paused.test(await status()), 30_000, 'releasing Space pauses', 200);
    await wb.runCommand(UI.stopCommand);
    await waitFor(async () => UI.idleOrError.test(await status()), 30_000, 'stopped', 200);
  });
});

/**
 * What the end-to-end scenarios do as a user: set the key, open a document at a line, start and stop
 * dictation (speaking once the microphone's audio reaches the service), speak sentences, save, read the
 * status item and the extension's log. The texts read and clicked are Dictée's French ones (lib/ui.ts):
 * the suite runs VS Code in French.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { speechPcm, silence } from '../../helpers/speech';
import { sleep, waitFor } from '../../helpers/wait';
import { UI } from './ui';
import { OUTPUT_DIR, type Workbench } from './workbench';
import { REPORT_INITIAL, type World } from './world';

export const BEFORE = '# Chest X-ray report\n\nPatient: Jane Doe, 52.\n\nFindings:';
export const AFTER = '\n\nSigned: Dr. Martin\n';
export const FINDINGS_LINE = 5;
export const FIRST_SENTENCE = 'Chest radiograph shows clear lungs.';
export const SECOND_SCRIPT =
  'Alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango.';

/** The files of the extension's log ("Dictée" output channel) in code-server's log folder. */
function extensionLogFiles(userDataDir: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(path.join(dir, d.name)) : [path.join(dir, d.name)]));
  return walk(path.join(userDataDir, 'logs')).filter((f) => /Dict/.test(path.basename(f)));
}

/** Copies the extension's log to the test output. */
export function copyExtensionLogs(w: World, prefix: string): void {
  for (const f of extensionLogFiles(w.codeServer.userDataDir))
    writeFileSync(path.join(OUTPUT_DIR, `${prefix}extension-${path.basename(f)}`), readFileSync(f));
}

/**
 * After a failed scenario: a screenshot, the service's log and the extension's log in the test output
 * (named after the scenario's number), and no run left going into the next scenario.
 */
export async function keepFailure(w: World, title: string): Promise<void> {
  const tag = `FAILED-${title.split(' ')[0] ?? ''}`;
  await w.wb.screenshot(`FAILED-${title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`).catch(() => undefined);
  writeFileSync(path.join(OUTPUT_DIR, `${tag}service.log`), w.service.logs());
  copyExtensionLogs(w, tag);
  await w.wb.escapeQuickInput().catch(() => undefined);
  await w.wb.runCommand(UI.stopCommand).catch(() => undefined);
  await waitForState(w.wb, UI.idleOrError, 30_000).catch(() => undefined);
  // The failed test's document may be left unsaved: closed without saving, so that the next test's first
  // command does not meet VS Code's "Do you want to save…?" dialog.
  await w.wb.closeAllEditorsDiscarding().catch(() => undefined);
}

/** The extension's log so far, as "Dictée: Show Log" shows it, of the code-server with this user-data dir. */
export function extensionLogIn(userDataDir: string): string {
  return extensionLogFiles(userDataDir)
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
}

/** The extension's log so far, as "Dictée: Show Log" shows it. */
export function extensionLog(w: World): string {
  return extensionLogIn(w.codeServer.userDataDir);
}

export async function statusText(wb: Workbench): Promise<string> {
  return (
    await wb
      .statusItem()
      .first()
      .innerText()
      .catch(() => '')
  )
    .replace(/\s+/g, ' ')
    .trim();
}

async function statusLabel(wb: Workbench): Promise<string> {
  return (
    (await wb
      .statusItem()
      .first()
      .locator('a, [aria-label]')
      .first()
      .getAttribute('aria-label')
      .catch(() => '')) ?? ''
  );
}

/** Waits until the status item's accessible label (which names the state) matches. */
export async function waitForState(wb: Workbench, re: RegExp, timeoutMs = 20_000): Promise<string> {
  return waitFor(
    async () => {
      const l = `${await statusLabel(wb)} ${await statusText(wb)}`;
      return re.test(l) ? l : '';
    },
    timeoutMs,
    `the Dictée status item to match ${re}`,
  );
}

/** Opens report.md, written with `content` first, with the cursor at the end of line `line`. */
export async function openReportAt(w: World, content: string, line: number): Promise<void> {
  const { wb } = w;
  await wb.closeAllEditorsDiscarding();
  w.resetReport(content);
  await wb.openFile('report.md');
  // VS Code restores the file's last scroll position: after a longer report only its last line may be in
  // view, and the lines read are the rendered ones. The top of the document is brought into view first.
  await wb.focusEditor();
  await wb.page.keyboard.press('Control+Home');
  const first = content.trimEnd().split('\n')[0]!;
  await waitFor(async () => (await wb.editorLines()).join('\n').startsWith(first), 10_000, 'report.md to show its content');
  await wb.gotoLineEnd(line);
  await waitFor(async () => (await wb.cursorPosition()).line === line, 5_000, `the cursor on line ${line}`);
}

export async function ensureKey(w: World, key = w.apiKey): Promise<void> {
  await w.wb.runCommand(UI.setApiKeyCommand);
  const box = await w.wb.waitForInputBox();
  assert.ok(box.password, 'the API key input box must be a password box');
  await w.wb.typeIntoInputBox(key);
  await w.wb.waitForNotification(UI.keySaved, 20_000);
  await w.wb.clearNotifications();
}

/** The id of the last session the service configured (from its JSON log), after the first `mark` characters of the log. */
function lastConfiguredSession(w: World, mark: number): string | undefined {
  let id: string | undefined;
  for (const line of w.service.logs().slice(mark).split('\n')) {
    if (!line.startsWith('{"')) continue;
    try {
      const j = JSON.parse(line) as { msg?: unknown; session_id?: unknown };
      if (j.msg === 'session configured' && typeof j.session_id === 'string') id = j.session_id;
    } catch {
      /* a line still being written */
    }
  }
  return id;
}

/** The frames of audio the service has received in a session (its metrics, read with the master key). */
export async function framesAtService(w: World, sessionId: string): Promise<number> {
  const s = await w.service.session(sessionId);
  return (s.metrics as { total_chunks?: number } | undefined)?.total_chunks ?? 0;
}

/** Seconds of audio the service session has received. */
export async function audioSecondsAtService(w: World, sessionId: string): Promise<number> {
  const s = await w.service.session(sessionId);
  return (s.metrics as { audio_seconds?: number } | undefined)?.audio_seconds ?? 0;
}

/**
 * Starts dictation and returns the service session's id once the recorder's audio reaches the service:
 * speech played before sox's PulseAudio stream is set up would not be captured, so, like a person, the
 * tests start speaking once the microphone is really on.
 */
export async function startDictation(w: World, how: 'palette' | 'status' = 'palette'): Promise<string> {
  const { wb } = w;
  const mark = w.service.logs().length;
  if (how === 'palette') await wb.runCommand(UI.startCommand);
  else await wb.statusItem().first().click();
  await waitForState(wb, UI.recording);
  const id = await waitFor(() => lastConfiguredSession(w, mark), 10_000, 'the service to configure the session');
  await waitFor(async () => (await framesAtService(w, id)) > 0, 15_000, "the recorder's audio to reach the service", 100);
  return id;
}

/** Stops dictation and waits for the end of the run. */
export async function stopDictation(w: World): Promise<void> {
  await w.wb.runCommand(UI.stopCommand);
  await waitForState(w.wb, UI.idleOrError, 30_000);
}

/** Saves the active editor; returns report.md as it is on disk. */
export async function saveReport(w: World): Promise<string> {
  await w.wb.focusEditor();
  await w.wb.save();
  return readFileSync(w.reportPath, 'utf8');
}

/** Opens report.md (reset to its initial text) with the cursor at the end of the "Findings:" line. */
export function openReportAtFindings(w: World, content = REPORT_INITIAL): Promise<void> {
  return openReportAt(w, content, FINDINGS_LINE);
}

export async function findingsLine(wb: Workbench): Promise<string> {
  return (await wb.editorLines())[FINDINGS_LINE - 1] ?? '';
}

/** Speech of `text` with a pause after each sentence long enough to end it. */
export async function sentences(text: string, pauseMs = 1500): Promise<Buffer> {
  const parts: Buffer[] = [silence(300)];
  for (const s of text.match(/[^.!?:]+[.!?:]?/g) ?? []) {
    if (!s.trim()) continue;
    parts.push(await speechPcm(s.trim()), silence(pauseMs));
  }
  return Buffer.concat(parts);
}

/** Waits until `read()` returns the same value for `quietMs` in a row; returns it. */
export async function settled<T>(read: () => Promise<T>, quietMs = 3000, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = JSON.stringify(await read());
  let since = Date.now();
  for (;;) {
    await sleep(200);
    const v = await read();
    const j = JSON.stringify(v);
    if (j !== last) {
      last = j;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) {
      return v;
    }
    if (Date.now() > deadline) throw new Error(`the value kept changing for ${timeoutMs} ms: ${j}`);
  }
}

export async function stopAndSave(w: World): Promise<string> {
  await stopDictation(w);
  return saveReport(w);
}

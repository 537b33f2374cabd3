/**
 * Drives the VS Code workbench (code-server) in headless Chromium through its real UI: the command
 * palette, quick open, quick input, notifications, the status bar and the editor. Reads what a user sees:
 * the editor's rendered lines (`.view-lines`) and the `::after` content of decorations.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Frame, type Locator, type Page } from 'playwright-core';
import { waitFor } from '../../helpers/wait';

export const CHROMIUM = process.env.DICTEE_E2E_CHROMIUM ?? '/usr/bin/chromium';
export const OUTPUT_DIR = path.resolve(__dirname, '..', '..', '..', 'test-output', 'e2e');

/** Headless Chromium as every e2e test and bench runs it; `extraArgs` add to its flags (a fake microphone…). */
export async function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
      ...extraArgs,
    ],
  });
}

/**
 * The little of the DOM the page-side functions below use (the project's tsconfig has no DOM lib: these
 * functions run in the browser, and are typed here by hand).
 */
interface El {
  id: string;
  innerText: string;
  textContent: string | null;
  style: { top: string };
  querySelector(sel: string): El | null;
  querySelectorAll(sel: string): Iterable<El> & ArrayLike<El>;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { left: number; top: number };
}
declare const getComputedStyle: (el: El, pseudo?: string) => { content: string };

export interface Notification {
  message: string;
  source: string;
  buttons: string[];
}

export class Workbench {
  readonly consoleErrors: string[] = [];
  private constructor(readonly page: Page) {
    page.on('console', (m) => {
      if (m.type() === 'error') this.consoleErrors.push(m.text());
    });
  }

  static async open(browser: Browser, url: string): Promise<Workbench> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    const wb = new Workbench(page);
    await page.goto(url);
    await page.waitForSelector('.monaco-workbench .part.statusbar', { timeout: 90_000 });
    // The extension host connects after the workbench paints; a status-bar entry of the remote shows it.
    await page.waitForSelector('#status\\.host', { timeout: 60_000 });
    return wb;
  }

  /** Milliseconds since the page began to load (the page's own clock). */
  async sincePageLoadMs(): Promise<number> {
    return Math.round(await this.page.evaluate(() => performance.now()));
  }

  async close(): Promise<void> {
    await this.page.context().close();
  }

  async screenshot(name: string): Promise<string> {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    const file = path.join(OUTPUT_DIR, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  // ---- command palette and quick input -------------------------------------------------------------

  private get quickInput(): Locator {
    return this.page.locator('.quick-input-widget');
  }

  /** VS Code's modal dialog ("Do you want to save…?"). */
  private get dialog(): Locator {
    return this.page.locator('.monaco-dialog-box');
  }

  async quickInputVisible(): Promise<boolean> {
    return this.quickInput.isVisible();
  }

  /** Runs a command by its palette label, e.g. `Dictée: Start Dictation`. */
  async runCommand(label: string): Promise<void> {
    // The palette lists the commands known when it opens: retry if it was opened too early.
    for (let attempt = 1; ; attempt++) {
      await this.escapeQuickInput();
      await this.assertNoDialog(`cannot run "${label}" from the palette`);
      await this.page.keyboard.press('F1');
      await this.quickInput.waitFor({ state: 'visible', timeout: 10_000 });
      await this.page.keyboard.type(label);
      const row = this.quickInput.locator('.monaco-list-row', { hasText: label }).first();
      try {
        await row.waitFor({ state: 'visible', timeout: 5_000 });
        break;
      } catch (e) {
        if (attempt === 3) throw e;
      }
    }
    // Where several rows match (a view's "Focus on … View" beside the command of the same name), the row
    // that shows the whole label is the one wanted: the focus goes down to it.
    const norm = (t: string): string => t.replace(/\u00a0/gu, ' ').replace(/ :/gu, ':');
    const rows = this.quickInput.locator('.monaco-list-row');
    const whole = async (): Promise<number> => {
      const texts = await rows.allInnerTexts().catch(() => [] as string[]);
      return texts.findIndex((t) => norm(t).includes(label));
    };
    if ((await whole()) > 0) {
      for (let i = 0; i < 10; i++) {
        const focused = norm(
          await rows
            .and(this.page.locator('.focused'))
            .first()
            .innerText()
            .catch(() => ''),
        );
        if (focused.includes(label)) break;
        await this.page.keyboard.press('ArrowDown');
      }
    }
    // The first row must be the one we want: the palette runs the focused row.
    await waitFor(
      async () =>
        (
          (await this.quickInput
            .locator('.monaco-list-row.focused')
            .first()
            .innerText()
            .catch(() => '')) ?? ''
        ).includes(label.split(': ').pop()!),
      10_000,
      `"${label}" to be the focused row of the command palette`,
    );
    await this.page.keyboard.press('Enter');
  }

  /** Closes every editor, discarding unsaved changes. */
  async closeAllEditorsDiscarding(): Promise<void> {
    const dontSave = async (): Promise<void> => {
      if (await this.dialog.isVisible())
        await this.dialog.locator('.monaco-button', { hasText: "Don't Save" }).first().click({ timeout: 5_000 });
    };
    // A save dialog already up (a failed test's "Close All Editors"): answered first, or the palette cannot open.
    await dontSave();
    await this.runCommand('View: Close All Editors');
    await waitFor(
      async () => {
        await dontSave();
        return (await this.page.locator('.editor-group-container .tab').count()) === 0;
      },
      10_000,
      'every editor to be closed',
      150,
    );
  }

  /**
   * A modal dialog (VS Code's "Do you want to save…?") takes every key: the palette cannot open behind it.
   * Says so, with the dialog's text, rather than a palette that never showed.
   */
  async assertNoDialog(what: string): Promise<void> {
    if (await this.dialog.isVisible()) {
      const text = (await this.dialog.innerText().catch(() => '')).replace(/\s+/gu, ' ').trim();
      throw new Error(`${what}: a modal dialog is open, and it takes every key: "${text}"`);
    }
  }

  async escapeQuickInput(): Promise<void> {
    if (await this.quickInput.isVisible()) {
      await this.page.keyboard.press('Escape');
      await this.quickInput.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
    }
  }

  /** Waits for a quick input (input box) and returns its prompt/placeholder text. */
  async waitForInputBox(timeoutMs = 15_000): Promise<{ placeholder: string; message: string; password: boolean }> {
    await this.quickInput.waitFor({ state: 'visible', timeout: timeoutMs });
    const input = this.quickInput.locator('input.input').first();
    return {
      placeholder: (await input.getAttribute('placeholder')) ?? '',
      message: await this.quickInput
        .locator('.quick-input-message')
        .innerText()
        .catch(() => ''),
      password: (await input.getAttribute('type')) === 'password',
    };
  }

  /** The title of the quick input on screen ('' when none). */
  async quickInputTitle(): Promise<string> {
    return (
      await this.quickInput
        .locator('.quick-input-title')
        .innerText()
        .catch(() => '')
    ).trim();
  }

  /**
   * Types `file` into VS Code's own file dialog, which VS Code for the Web shows as a quick input titled
   * `title`, and returns once the dialog has taken it: Enter then opens that file. The dialog first lists
   * the folder it opens in and then writes that folder's path into its box, over anything typed before;
   * so the path is typed once the folder is listed, and the dialog has taken it when the box still holds
   * it and the file's row is the active one.
   */
  async typeIntoFileDialog(title: string, file: string): Promise<void> {
    const input = this.quickInput.locator('input.input').first();
    const name = path.basename(file);
    const value = () => input.inputValue().catch(() => '');
    const activeRow = () =>
      this.quickInput
        .locator('.monaco-list-row.focused')
        .first()
        .innerText()
        .catch(() => '');
    await waitFor(
      async () => (await this.quickInputTitle()) === title && /\/$/.test(await value()) && (await this.quickPickRows()).length > 0,
      15_000,
      `the file dialog "${title}" to list the folder it opens in`,
      50,
    );
    await input.fill(file);
    await waitFor(
      async () => (await value()) === file && (await activeRow()).includes(name),
      10_000,
      `the file dialog to take ${name} (the path in its box, the file's row active)`,
      50,
    );
  }

  /** The rows of the quick pick on screen (label, description, detail, as rendered), separators included. */
  async quickPickRows(): Promise<string[]> {
    return (await this.quickInput.locator('.monaco-list-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  }

  async typeIntoInputBox(text: string): Promise<void> {
    const input = this.quickInput.locator('input.input').first();
    await input.fill(text);
    await this.page.keyboard.press('Enter');
  }

  /** Waits for a row of the open quick pick containing `text` and accepts it (click). */
  async pickQuickPickRow(text: string | RegExp, timeoutMs = 15_000): Promise<void> {
    const row = this.quickInput.locator('.monaco-list-row', { hasText: text }).first();
    await row.waitFor({ state: 'visible', timeout: timeoutMs });
    await row.click();
  }

  // ---- files and editor -----------------------------------------------------------------------------

  /** Opens a workspace file with quick open (Ctrl+P). */
  async openFile(name: string): Promise<void> {
    await this.escapeQuickInput();
    await this.page.keyboard.press('Control+P');
    await this.quickInput.waitFor({ state: 'visible', timeout: 10_000 });
    await this.page.keyboard.type(name);
    await this.quickInput.locator('.monaco-list-row', { hasText: name }).first().waitFor({ state: 'visible', timeout: 15_000 });
    await this.page.keyboard.press('Enter');
    await waitFor(async () => (await this.activeTabName()) === name, 15_000, `the editor tab ${name}`);
    await this.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().waitFor({ state: 'visible' });
  }

  async activeTabName(): Promise<string> {
    return (
      await this.page
        .locator('.editor-group-container.active .tab.active .label-name')
        .first()
        .innerText()
        .catch(() => '')
    ).trim();
  }

  private get editor(): Locator {
    return this.page.locator('.editor-group-container.active .monaco-editor').first();
  }

  /**
   * Clicks the start of the first line when it is on screen (where the cursor went before, which callers such
   * as Next Doubtful Word start from); when the editor is scrolled (after a long insertion the lines' layer's
   * top-left corner lies above the page) inside the editor's own box instead, a third across and half-way
   * down: away from the sticky-scroll header at its top and the minimap at its right.
   */
  async focusEditor(): Promise<void> {
    const box = await this.editor.boundingBox();
    if (!box) throw new Error('the active editor is not on screen');
    const lines = this.editor.locator('.view-lines');
    const at = await lines.boundingBox();
    if (at && at.x >= box.x && at.y >= box.y && at.y + 5 < box.y + box.height) {
      // Where something else takes that point (the page has been seen to answer with <html> there), the
      // editor's own box below.
      const clicked = await lines
        .click({ position: { x: 5, y: 5 }, timeout: 5000 })
        .then(() => true)
        .catch(() => false);
      if (clicked) return;
    }
    await this.editor.click({ position: { x: Math.round(box.width / 3), y: Math.round(box.height / 2) } });
  }

  /** Moves the cursor to line `line` (1-based), at its end (Ctrl+G, then End). */
  async gotoLineEnd(line: number): Promise<void> {
    await this.focusEditor();
    await this.page.keyboard.press('Control+G');
    await this.quickInput.waitFor({ state: 'visible', timeout: 10_000 });
    await this.page.keyboard.type(String(line));
    await this.page.keyboard.press('Enter');
    await this.quickInput.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
    await this.page.keyboard.press('End');
  }

  /**
   * Moves the cursor to line `line`, column `col` (both 1-based; Ctrl+G `line:col`) of the editor of the
   * first group (focused by Ctrl+1, not by a click: a webview beside it may still cover the page).
   */
  async gotoPosition(line: number, col: number): Promise<void> {
    await this.escapeQuickInput();
    await this.page.keyboard.press('Control+1');
    await this.page.keyboard.press('Control+G');
    await this.quickInput.waitFor({ state: 'visible', timeout: 10_000 });
    await this.page.keyboard.type(`${line}:${col}`);
    await this.page.keyboard.press('Enter');
    await this.quickInput.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
  }

  /** The cursor position as the status bar shows it ("Ln 3, Col 11"). */
  async cursorPosition(): Promise<{ line: number; col: number }> {
    const t = await this.page.locator('#status\\.editor\\.selection').innerText();
    const m = /Ln (\d+), Col (\d+)/.exec(t);
    if (!m) throw new Error(`no cursor position in the status bar: ${t}`);
    return { line: Number(m[1]), col: Number(m[2]) };
  }

  async typeText(text: string): Promise<void> {
    await this.page.keyboard.type(text, { delay: 15 });
  }

  async save(): Promise<void> {
    await this.page.keyboard.press('Control+S');
    await waitFor(
      async () => !(await this.page.locator('.editor-group-container.active .tab.active.dirty').count()),
      10_000,
      'the editor to be saved',
    );
  }

  /**
   * The visible text of the active editor, line by line, as rendered (decorations excluded). Small
   * documents only: lines scrolled out of view are not rendered.
   */
  async editorLines(): Promise<string[]> {
    return this.editor.evaluate((node) => {
      const ed = node as unknown as El;
      const lines = [...ed.querySelectorAll('.view-lines .view-line')];
      lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
      return lines.map((l) => (l.textContent ?? '').replace(/\u00a0/g, ' '));
    });
  }

  /**
   * Text shown by `after` decorations in the active editor (VS Code renders them as `::after` content
   * of a span whose class carries a generated CSS rule): each decoration's text, in document order.
   */
  async afterDecorations(): Promise<string[]> {
    return this.editor.evaluate((node) => {
      const ed = node as unknown as El;
      const out: { top: number; left: number; text: string }[] = [];
      for (const line of ed.querySelectorAll('.view-lines .view-line')) {
        for (const span of line.querySelectorAll('span')) {
          const c = getComputedStyle(span, '::after').content;
          if (!c || c === 'none' || c === 'normal' || c === '""') continue;
          let text = c;
          try {
            text = JSON.parse(c) as string;
          } catch {
            /* not a plain string: keep it as is */
          }
          out.push({ top: parseFloat(line.style.top), left: span.getBoundingClientRect().left, text: text.replace(/\u00a0/g, ' ') });
        }
      }
      out.sort((a, b) => a.top - b.top || a.left - b.left);
      return out.map((o) => o.text);
    });
  }

  // ---- status bar and notifications ------------------------------------------------------------------

  /** The Dictée status-bar item (its DOM id carries the item id `dictee.status`). */
  statusItem(): Locator {
    return this.page.locator('.part.statusbar .statusbar-item[id*="dictee.status" i]');
  }

  /** The language item beside it (`dictee.language`). */
  languageItem(): Locator {
    return this.page.locator('.part.statusbar .statusbar-item[id*="dictee.language" i]');
  }

  /**
   * For each `after` decoration of the active editor, where it begins and how far its text reaches,
   * in pixels from the right edge of the editor's text area (≤ 0: visible).
   */
  async afterDecorationOverflow(): Promise<{ text: string; startPx: number; overflowPx: number }[]> {
    return (await this.page.evaluate(`(() => {
      const ed = document.querySelector('.editor-instance .monaco-editor');
      const area = ed.querySelector('.monaco-scrollable-element.editor-scrollable');
      const bar = area.querySelector('.scrollbar.vertical');
      const right = area.getBoundingClientRect().right - (bar ? bar.getBoundingClientRect().width : 0);
      const out = [];
      for (const span of ed.querySelectorAll('.view-lines .view-line span')) {
        const c = getComputedStyle(span, '::after').content;
        if (!c || c === 'none' || c === 'normal' || c === '""') continue;
        const box = span.getBoundingClientRect();
        out.push({ text: c, startPx: Math.round(box.left - right), overflowPx: Math.round(box.right - right) });
      }
      return out;
    })()`)) as { text: string; startPx: number; overflowPx: number }[];
  }

  /** Records every text the Dictée status-bar item shows from now on; the function returned reads them. */
  async watchStatusTexts(): Promise<() => Promise<string[]>> {
    // A MutationObserver sees every change, however brief (a string: the page has the DOM types, this file has not).
    await this.page.evaluate(`(() => {
      const seen = (window.__dicteeStatusTexts = []);
      const read = () => {
        const el = document.querySelector('.part.statusbar .statusbar-item[id*="dictee.status" i]');
        const text = el ? el.innerText.trim() : '';
        if (seen[seen.length - 1] !== text) seen.push(text);
      };
      read();
      new MutationObserver(read).observe(document.querySelector('.part.statusbar'), { subtree: true, childList: true, characterData: true, attributes: true });
    })()`);
    return async () => (await this.page.evaluate('window.__dicteeStatusTexts.slice()')) as string[];
  }

  async statusItems(): Promise<{ id: string; text: string; label: string }[]> {
    return this.page.$$eval('.part.statusbar .statusbar-item[id*="dictee" i]', (nodes) =>
      (nodes as unknown as El[]).map((e) => ({
        id: e.id,
        text: e.innerText.trim(),
        label: e.querySelector('[aria-label]')?.getAttribute('aria-label') ?? e.getAttribute('aria-label') ?? '',
      })),
    );
  }

  /** Hovers an element and returns the text of the hover (tooltip) it shows. */
  async tooltipOf(el: Locator): Promise<string> {
    const hovers = this.page.locator('.workbench-hover, .monaco-hover').filter({ hasNotText: /^$/ });
    // The hover of an earlier element closes first, so that the one read is this element's.
    await this.page.mouse.move(0, 0);
    await waitFor(async () => (await hovers.count()) === 0 || !(await hovers.last().isVisible()), 5_000, 'the previous hover to close', 50);
    const hover = hovers.last();
    // A hover that does not open (the pointer's move was missed on a loaded machine) is tried again.
    await waitFor(
      async () => {
        await el.hover();
        try {
          await hover.waitFor({ state: 'visible', timeout: 3_000 });
          return true;
        } catch {
          await this.page.mouse.move(0, 0);
          return false;
        }
      },
      20_000,
      'the hover to open',
      50,
    );
    const text = (await hover.innerText()).trim();
    await this.page.mouse.move(0, 0);
    return text;
  }

  /** Hovers an element and clicks the link of its hover (tooltip) that holds `text`; tried again while the hover does not open. */
  async clickTooltipLink(el: Locator, text: string | RegExp): Promise<void> {
    const link = this.page.locator('.workbench-hover a, .monaco-hover a', { hasText: text }).first();
    await waitFor(
      async () => {
        await this.page.mouse.move(0, 0);
        await el.hover();
        try {
          await link.waitFor({ state: 'visible', timeout: 3_000 });
          await link.click({ timeout: 3_000 });
          return true;
        } catch {
          return false;
        }
      },
      30_000,
      `the hover's link ${String(text)} to be clicked`,
      50,
    );
  }

  async notifications(): Promise<Notification[]> {
    return this.page.$$eval('.notifications-toasts .notification-toast, .notifications-center .notification-list-item', (nodes) =>
      (nodes as unknown as El[]).map((e) => ({
        message: e.querySelector('.notification-list-item-message')?.innerText.trim() ?? '',
        source: e.querySelector('.notification-list-item-source')?.innerText.trim() ?? '',
        buttons: [...e.querySelectorAll('.notification-list-item-buttons-container .monaco-button')].map((b) => b.innerText.trim()),
      })),
    );
  }

  async waitForNotification(re: RegExp, timeoutMs = 20_000): Promise<Notification> {
    return waitFor(
      async () => (await this.notifications()).find((n) => re.test(n.message)),
      timeoutMs,
      `a notification matching ${re}`,
      200,
    );
  }

  async clickNotificationButton(messageRe: RegExp, button: string): Promise<void> {
    const toast = this.page.locator('.notifications-toasts .notification-toast', { hasText: messageRe }).first();
    await toast.locator('.monaco-button', { hasText: button }).first().click();
  }

  async clearNotifications(): Promise<void> {
    await this.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
  }

  // ---- webviews and layout --------------------------------------------------------------------------

  /** The frame of a webview's page in which `probe` (an expression, run there) is true. */
  async webviewFrame(probe: string): Promise<Frame | undefined> {
    for (const frame of this.page.frames()) {
      if (frame === this.page.mainFrame()) continue;
      if (await frame.evaluate(probe).catch(() => false)) return frame;
    }
    return undefined;
  }

  /** Where a frame's page is shown in the window (its iframe's box; empty when hidden), and whether that is inside the panel. */
  async frameBox(frame: Frame): Promise<{ box: { x: number; y: number; width: number; height: number } | null; inPanel: boolean }> {
    const box = await (await frame.frameElement()).boundingBox();
    const panel = await this.page
      .locator('.part.panel')
      .boundingBox()
      .catch(() => null);
    const inPanel =
      !!box &&
      !!panel &&
      box.width > 0 &&
      box.x >= panel.x - 1 &&
      box.y >= panel.y - 1 &&
      box.x + box.width <= panel.x + panel.width + 1 &&
      box.y + box.height <= panel.y + panel.height + 1;
    return { box, inPanel };
  }

  /** How many editor groups the editor area shows (1: not split). */
  async editorGroups(): Promise<number> {
    return this.page.locator('.editor-group-container').count();
  }

  /** Whether the keyboard is in a text editor (its hidden textarea has the focus). */
  async editorHasFocus(): Promise<boolean> {
    return (await this.page.evaluate(
      `(() => { const a = document.activeElement; return !!a && !!a.closest && !!a.closest('.editor-group-container .monaco-editor'); })()`,
    )) as boolean;
  }
}

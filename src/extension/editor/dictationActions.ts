/**
 * The commands said alone, run in the editor on the run's document: delete the last utterance (one
 * undo step), the editor's undo, next and previous field (the field is selected and becomes the run's
 * insertion point), accept defaults, insert a template or an auto-text (its first field selected), stop
 * dictation, what can I say. An action that cannot be done leaves the words and says why; nothing a
 * person edited is deleted.
 */
import { acceptDefaults, nextField, previousField, templateInsertion, type DictationAction, type Template } from '../../dictation';
import type { Logger } from '../../shared/logger';
import type { L10n } from '../l10nText';
import { CURSOR_ID, type DictationCursor } from './writerTypes';

/** Where a template or an auto-text goes, while its edit is on its way. */
const TEMPLATE_AT_ID = '\u0000template';

/** What the actions need from outside the document. */
export interface DictationUi {
  /** "Stop dictation": the run ends (not awaited: it waits for the queue the action runs in). */
  stop(): void;
  /** "What can I say?" */
  whatCanISay(): void;
  /** Something said could not be done: tell the user (never with the dictated words). */
  tell(message: string): void;
  /** A template or an auto-text was inserted into the run's document (its fields are watched from now on). */
  templateInserted(): void;
}

export class DictationActions {
  constructor(
    private readonly chunks: DictationCursor,
    private readonly ui: DictationUi,
    private readonly l10n: L10n,
    private readonly log: Logger,
  ) {}

  /** Runs one action; `id` is the chunk that said it ('command' for a command of the editor). */
  async run(a: DictationAction, id: string): Promise<void> {
    switch (a.kind) {
      case 'deleteLastUtterance':
        await this.deleteChunk(a.targetId);
        break;
      case 'undo':
        await this.undo();
        break;
      case 'nextField':
      case 'previousField': {
        const c = this.chunks.cursor();
        this.selectField(a.kind === 'nextField' ? 'next' : 'previous', c);
        break;
      }
      case 'acceptDefaults':
        await this.acceptDefaults(id);
        break;
      case 'insertTemplate':
      case 'insertAutoText':
        if (!a.template) {
          this.ui.tell(this.l10n.t('No template or auto-text has the name you said. "Dictée: Insert Template…" lists them.'));
          break;
        }
        await this.insert(a.kind, a.template, id, this.chunks.cursor());
        break;
      case 'stopDictation':
        this.ui.stop();
        break;
      case 'whatCanISay':
        this.ui.whatCanISay();
        break;
    }
  }

  /** Deletes the text of chunk `targetId`, in one undo step, unless a person changed it. */
  private async deleteChunk(targetId: string | undefined): Promise<void> {
    const tracker = this.chunks.target.tracker;
    const r = targetId ? tracker.get(targetId) : undefined;
    if (!targetId || !r || r.end === r.start) {
      this.ui.tell(this.l10n.t('Nothing dictated is left to delete.'));
      return;
    }
    if (r.edited) {
      this.ui.tell(this.l10n.t('The last dictated text was changed in the document: it is kept.'));
      this.log.info(`delete of chunk ${targetId} not done: it was edited`);
      return;
    }
    let kept = false;
    const ok = await this.chunks.target.applyWithRetry(
      () => {
        const now = tracker.get(targetId);
        // A person changed it while the edit was on its way (it was refused): it is kept.
        kept = now?.edited === true;
        if (!now || now.end === now.start || kept) return null;
        return {
          changes: [{ offset: now.start, deletedLength: now.end - now.start, text: '' }],
          effect: { kind: 'replace', id: targetId, removeIds: [targetId], offset: now.start, length: 0 },
        };
      },
      { before: true, after: false },
      `delete of chunk ${targetId}`,
    );
    if (!ok) {
      this.ui.tell(this.l10n.t('The last dictated text could not be deleted: it is kept.'));
      return;
    }
    if (kept) {
      this.ui.tell(this.l10n.t('The last dictated text was changed in the document: it is kept.'));
      this.log.info(`delete of chunk ${targetId} not done: it was edited meanwhile`);
      return;
    }
    this.chunks.opened(targetId);
    this.log.info(`deleted chunk ${targetId}`);
    this.chunks.renderProvisional();
  }

  /** The editor's undo, in the run's document (shown and focused first, so that it is the one undone). */
  private async undo(): Promise<void> {
    if (!(await this.chunks.target.port.undo())) {
      this.ui.tell(this.l10n.t('Nothing was undone: the document you dictate into is not shown in an editor.'));
      return;
    }
    this.log.info('undo in the dictated document');
  }

  /** Selects the next (or previous) field from `from`; it becomes the insertion point. False when there is none. */
  selectField(direction: 'next' | 'previous', from: { start: number; end: number }): boolean {
    const text = this.chunks.target.port.text();
    const f = direction === 'next' ? nextField(text, from.end) : previousField(text, from.start);
    if (!f) {
      this.ui.tell(
        direction === 'next' ? this.l10n.t('No template field after the cursor.') : this.l10n.t('No template field before the cursor.'),
      );
      return false;
    }
    this.chunks.setCursor(f.start, f.end, 'field');
    this.log.info(`${direction} field selected at offset ${f.start}`);
    return true;
  }

  /** Every field left takes its default, in one undo step; a selected field's default is then passed. */
  private async acceptDefaults(id: string): Promise<void> {
    const target = this.chunks.target;
    const tracker = target.tracker;
    const wasField = this.chunks.cursor().end > this.chunks.cursor().start;
    let count = 0;
    const ok = await target.applyWithRetry(
      () => {
        const edits = acceptDefaults(target.port.text()).edits;
        count = edits.length;
        if (edits.length === 0) return null;
        return {
          changes: edits.map((e) => ({ offset: e.offset, deletedLength: e.length, text: e.text })),
          effect: { kind: 'edit', id: `${id} (defaults)` },
        };
      },
      this.chunks.stops(id),
      'accept defaults',
    );
    if (!ok) {
      this.ui.tell(this.l10n.t('The template fields could not be filled with their defaults.'));
      return;
    }
    if (count === 0) {
      this.ui.tell(this.l10n.t('No template fields are left.'));
      return;
    }
    this.chunks.opened(id);
    const c = tracker.get(CURSOR_ID);
    if (c && wasField) this.chunks.setCursor(c.end, c.end, 'point');
    this.log.info(`${count} fields took their defaults`);
  }

  /** "Insert Template…" from the palette at the editor's selection. */
  async insertTemplate(template: Template, at: { start: number; end: number }): Promise<void> {
    await this.insert('insertTemplate', template, null, at);
  }

  /**
   * Inserts a template or an auto-text at `at` (replacing it), owned by chunk `id` when it was said (so
   * that "delete that" deletes it); its first field is then selected, or the insertion point follows it.
   */
  private async insert(
    kind: 'insertTemplate' | 'insertAutoText',
    template: Template,
    id: string | null,
    from: { start: number; end: number },
  ): Promise<void> {
    const target = this.chunks.target;
    const tracker = target.tracker;
    const placed: { value: { start: number; select: { start: number; end: number }; length: number } | null } = { value: null };
    const eol = target.eol;
    // Tracked while the edit is on its way: a person's edit meanwhile moves it.
    tracker.track(TEMPLATE_AT_ID, from.start, from.end - from.start);
    let ok: boolean;
    try {
      ok = await target.applyWithRetry(
        () => {
          // Where a person edited meanwhile, their text stays: the template goes after it.
          const now = tracker.get(TEMPLATE_AT_ID) ?? from;
          const at = 'edited' in now && now.edited ? { start: now.end, end: now.end } : now;
          const before = target.text(at.start - 2, at.start).replace(/\r\n?/gu, '\n');
          const ins = templateInsertion(kind, at.start === 0 ? '' : before, template.content);
          const text = ins.text.replace(/\n/gu, eol);
          // Offsets in the document's own line breaks.
          const toDoc = (n: number): number => ins.text.slice(0, n).replace(/\n/gu, eol).length;
          placed.value = { start: at.start, select: { start: toDoc(ins.select.start), end: toDoc(ins.select.end) }, length: text.length };
          const own = id ? tracker.get(id) : undefined;
          const extend = id !== null && own !== undefined && own.end === at.start && own.end > own.start && !own.edited;
          const changes = [{ offset: at.start, deletedLength: at.end - at.start, text }];
          if (id === null) return { changes, effect: { kind: 'edit', id: `template ${template.path}` } };
          const start = extend && own ? own.start : at.start;
          return {
            changes,
            effect: {
              kind: 'replace',
              id,
              removeIds: extend ? [id, CURSOR_ID] : [CURSOR_ID],
              offset: start,
              length: at.start - start + text.length,
            },
          };
        },
        id ? this.chunks.stops(id) : { before: true, after: false },
        `insert of ${kind === 'insertTemplate' ? 'template' : 'auto-text'} ${template.path}`,
      );
    } finally {
      tracker.untrack(TEMPLATE_AT_ID);
    }
    const p = placed.value;
    if (!ok || !p) {
      this.ui.tell(this.l10n.t('The template could not be inserted.'));
      return;
    }
    if (id) this.chunks.opened(id);
    this.log.info(
      `inserted ${template.source} ${kind === 'insertTemplate' ? 'template' : 'auto-text'} ${template.path} (${p.length} characters at offset ${p.start})`,
    );
    const isField = p.select.end > p.select.start;
    this.chunks.setCursor(p.start + p.select.start, p.start + p.select.end, isField ? 'field' : 'point');
    this.ui.templateInserted();
  }
}

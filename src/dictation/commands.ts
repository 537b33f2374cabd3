/**
 * Whole-utterance commands (a command only when said alone, as in Dragon; inside a sentence the same
 * words are dictation), the words to hold back at the end of a chunk because they may begin a command,
 * and the list of spoken commands of a language ("What Can I Say?", docs/dictation.md).
 */
import type { LanguageTable } from './lang/table';
import { elisionVariants, inlinePhrases } from './phrases';
import { findTemplate } from './templates';
import { fold } from './text';
import type { Token } from './tokenizer';
import type { CommandRule, DictationAction, Specialty, Template } from './types';

/** Stands for `{name}` while spoken forms are folded (a word, so folding keeps it). */
const SLOT = 'zzslotzz';

interface CompiledCommand {
  kind: CommandRule['kind'];
  /** Folded spoken form without a name, or a pattern whose group 1 is the name. */
  exact?: string;
  pattern?: RegExp;
  /** Folded words before the name (or all of them), for hold-back. */
  fixed: string[];
  words: number;
}

const compiledCommands = new WeakMap<LanguageTable, CompiledCommand[]>();

function commandsOf(table: LanguageTable): CompiledCommand[] {
  let c = compiledCommands.get(table);
  if (!c) {
    c = table.commands.flatMap((cmd) =>
      cmd.say.flatMap(elisionVariants).map((form): CompiledCommand => {
        const f = fold(form.replace('{name}', SLOT));
        const words = f.split(' ');
        if (!form.includes('{name}')) return { kind: cmd.kind, exact: f, fixed: words, words: words.length };
        const [pre, post] = f.split(SLOT).map((x) => x.trim()) as [string, string];
        const pattern = new RegExp(`^${pre ? `${escapeRegExp(pre)} ` : ''}(.+?)${post ? ` ${escapeRegExp(post)}` : ''}$`, 'u');
        return { kind: cmd.kind, pattern, fixed: words.slice(0, words.indexOf(SLOT)), words: words.length };
      }),
    );
    compiledCommands.set(table, c);
  }
  return c;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}

/** The action an utterance said alone asks for, or null when it is dictation. */
export function matchCommand(text: string, table: LanguageTable, templates: readonly Template[]): DictationAction | null {
  const said = fold(text);
  if (said === '') return null;
  for (const c of commandsOf(table)) {
    if (c.exact !== undefined) {
      if (c.exact === said) return { kind: c.kind } as DictationAction;
      continue;
    }
    const m = c.pattern!.exec(said);
    if (!m) continue;
    const spokenName = m[1]!;
    const template = findTemplate(templates, spokenName, table.code);
    if (c.kind === 'insertAutoText') {
      if (template) return { kind: 'insertAutoText', spokenName, template };
      continue;
    }
    if (c.kind === 'insertTemplate') return { kind: 'insertTemplate', spokenName, template };
    const proof = proofreadingAction(c.kind, spokenName, table);
    if (proof) return proof;
  }
  return null;
}

/** How many readings the editor offers at most ("choose five"). */
const MAX_CHOICE = 9;

/** The proofreading commands with words after them; null when what follows is not what they take (dictation). */
function proofreadingAction(kind: CommandRule['kind'], said: string, table: LanguageTable): DictationAction | null {
  switch (kind) {
    case 'chooseAlternative': {
      const choice = /^\d+$/u.test(said) ? Number(said) : smallNumber(said, table);
      return choice !== undefined && choice >= 1 && choice <= MAX_CHOICE ? { kind, choice } : null;
    }
    case 'correctWords':
      return { kind, words: said };
    case 'spellThat': {
      // Letters said one by one: "b r o n c h e" (a digit is a letter of its own too).
      const letters = said.split(' ');
      return letters.every((l) => [...l].length === 1) ? { kind, letters: letters.join('') } : null;
    }
    default:
      return null;
  }
}

/** A number said as one word of the language's table ("deux", "two", "zwei"), units and teens only. */
function smallNumber(said: string, table: LanguageTable): number | undefined {
  for (const [word, n] of Object.entries(table.numbers.words)) {
    if (!n.ord && (n.kind === 'u' || n.kind === 'tu') && fold(word) === said) return n.value;
  }
  return undefined;
}

/**
 * How many tokens at the end of an utterance to hold back: the longest tail that is the beginning
 * (not the whole) of a spoken phrase ("point d'", "new", "nouveau"), or the whole utterance when it
 * is the beginning of a whole-utterance command ("efface", "insérer modèle").
 */
export function heldTail(tokens: readonly Token[], table: LanguageTable, alone: boolean): number {
  let end = tokens.length;
  while (end > 0 && tokens[end - 1]!.kind === 'punct' && tokens[end - 1]!.pos !== 'lead') end--;
  if (end === 0) return 0;
  const words = tokens.slice(0, end).map((t) => t.norm);
  // The whole utterance as the beginning of a command said alone.
  if (alone) {
    const said = fold(
      tokens
        .slice(0, end)
        .map((t) => t.text)
        .join(' '),
    ).split(' ');
    for (const c of commandsOf(table)) {
      const isPrefix = said.length <= c.fixed.length && said.every((x, k) => x === c.fixed[k]);
      if (isPrefix && said.length < c.words && !matchCommandWords(said.join(' '), table)) return tokens.length;
    }
  }
  // A tail that begins a phrase said inside a sentence.
  let best = 0;
  for (const p of inlinePhrases(table)) {
    for (let k = Math.min(p.norms.length - 1, words.length); k > best; k--) {
      const tail = words.slice(words.length - k);
      if (tail.every((x, q) => x === p.norms[q]) && !completePhrase(tail, table)) {
        best = k;
        break;
      }
    }
  }
  return best > 0 ? best + (tokens.length - end) : 0;
}

function matchCommandWords(said: string, table: LanguageTable): boolean {
  return commandsOf(table).some((c) => c.exact === said);
}

function completePhrase(norms: string[], table: LanguageTable): boolean {
  return inlinePhrases(table).some((p) => p.norms.length === norms.length && p.norms.every((x, q) => x === norms[q]));
}

export interface SpokenEntry {
  say: string[];
  does: string;
  /** The action of a command said alone (its description is then the same in every language). */
  command?: CommandRule['kind'];
  /** Only the editor does it (the command line ignores it). */
  editorOnly?: boolean;
  /** Only in these specialties. */
  specialties?: Specialty[];
}

export interface SpokenGroup {
  /** Which group (the editor names it in the user's language). */
  id: 'commands' | 'structure' | 'punctuation' | 'literal';
  /** "Commands", "Structure", "Punctuation". */
  title: string;
  entries: SpokenEntry[];
}

/** What a command's `{name}` is shown as, when it is not a name. */
const SLOT_SHOWN: Partial<Record<CommandRule['kind'], string>> = {
  chooseAlternative: '‹number›',
  correctWords: '‹words›',
  spellThat: '‹letters›',
};

/** The spoken commands of a language, from the same tables the grammar uses. */
export function spokenCommands(table: LanguageTable): SpokenGroup[] {
  const cmd = (c: CommandRule): SpokenEntry => ({
    say: c.say.map((s) => s.replace('{name}', SLOT_SHOWN[c.kind] ?? '‹name›')),
    does: c.doc,
    command: c.kind,
    ...(c.editorOnly ? { editorOnly: true } : {}),
  });
  return [
    { id: 'commands', title: 'Commands (said alone)', entries: table.commands.map(cmd) },
    { id: 'structure', title: 'Structure', entries: table.structure.map((r) => ({ say: r.say, does: r.doc })) },
    {
      id: 'punctuation',
      title: 'Punctuation',
      entries: table.punctuation.map((r) => ({ say: r.say, does: r.doc, ...(r.specialties ? { specialties: r.specialties } : {}) })),
    },
    {
      id: 'literal',
      title: 'Literal (the next word as said)',
      entries: [{ say: table.literal.map((l) => `${l} ‹word›`), does: 'writes the next word without any rule' }],
    },
  ];
}

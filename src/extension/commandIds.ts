/**
 * The ids of the extension's commands: those package.json contributes (commandIds.generated.ts, written
 * from package.json by scripts/commands.ts) and the internal ones, registered but not contributed (they
 * take arguments only the editor gives). `CommandId` is what `registerCommand` (commands.ts) accepts.
 */
import type { ContributedCommandId } from './commandIds.generated';

export { CONTRIBUTED_COMMANDS, type ContributedCommandId } from './commandIds.generated';

/** The quick fix and the hover link of a doubtful word (arguments: the document, the start and end offsets). */
export const INTERNAL_COMMANDS = ['dictee.correctRange', 'dictee.playRange'] as const;

export type InternalCommandId = (typeof INTERNAL_COMMANDS)[number];

/** A command the extension registers: contributed by package.json, or internal. */
export type CommandId = ContributedCommandId | InternalCommandId;

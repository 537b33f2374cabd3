/**
 * What a dictation run (dictationRun.ts) is given and what it tells: `RunServices`, the read-only record
 * of the window's services it uses, and `RunEvents`, what it reports to whoever subscribes (the
 * controller maps them onto its state), and how it ended (`RunOutcome`).
 */
import type * as vscode from 'vscode';
import type { DictationError } from '../../client/errors';
import type { SessionState } from '../../client/session';
import type { ProvisionalDecoration } from '../editor/provisionalDecoration';
import type { ProofreadingServices } from '../proofreading/runHooks';
import type { StatusBar } from '../ui/statusBar';
import type { Notifications } from './notifications';

/** How a run ended: the error the user is told about, if any. */
export interface RunOutcome {
  fatal?: DictationError;
  recorderFailed?: Error;
  /** The run had reached recording (a network error then is a lost connection). */
  wasConnected: boolean;
  /** A file run delivered its whole file. */
  fileDone: boolean;
}

/** The services of the window a run uses (built once, by the composition root and the controller). */
export interface RunServices {
  readonly status: StatusBar;
  readonly notifications: Notifications;
  /** The provisional text's decoration, shared by every run of the window. */
  readonly decoration: ProvisionalDecoration;
  /** Doubtful words, Correct That and Play Back: what a run hands its proofreading (runHooks.ts). */
  readonly proofreading: ProofreadingServices;
  /** Where the text of a run goes when no document can be opened for it (the extension's own storage). */
  readonly rescueDir: vscode.Uri;
}

/** What a run tells its subscribers (`DictationRun.on`), synchronously, in the order it happens. */
export interface RunEvents {
  /** The run's session changed state (the controller maps it to its own). */
  state: SessionState;
  /** The run has begun to end (whatever the reason). */
  ending: undefined;
  /** The run is over; everything it held is released. */
  ended: RunOutcome;
  /** The service told which engine serves the run. */
  engine: string;
  /** A sentence was committed to the document (for screen-reader announcements); never logged. */
  committed: string;
  /** The run's last chunk written with text stands at `[start, end)` of its document now. */
  lastWritten: { start: number; end: number };
}

/** Replaces every spelling of a document's address and name in a log line by `<document>`. */
export function documentNames(uri: vscode.Uri): (line: string) => string {
  const name = uri.path.slice(uri.path.lastIndexOf('/') + 1);
  const forms = [uri.toString(), uri.toString(true), uri.fsPath, uri.path, name]
    .filter((f) => f.length >= 3)
    .sort((a, b) => b.length - a.length);
  return (line) => forms.reduce((l, f) => l.split(f).join('<document>'), line);
}

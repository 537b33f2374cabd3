/**
 * What a dictation run (run/dictationRun.ts) sets up for proofreading when `dictee.proofreading.threshold`
 * is above 0: its RunProofreading (doubtful words, alternatives, the correction commands said alone, the
 * wrong-language warning) and its audio kept for Play Back.
 */
import type * as vscode from 'vscode';
import type { RunAudio } from '../../client/proofreading/runAudio';
import type { Logger } from '../../shared/logger';
import type { DicteeSettings } from '../settingsMap';
import type { CorrectThat } from './correctThat';
import type { DoubtfulWords } from './doubtfulWords';
import type { PlayBack } from './playBack';
import { RunProofreading } from './runProofreading';
import { tellWrongLanguage } from './wrongLanguage';

/**
 * The proofreading services of the window, as one read-only record: built by the composition root
 * (container.ts) and handed to each run through its RunServices (run/runTypes.ts), their one way in.
 */
export interface ProofreadingServices {
  /** The doubtful words of every document (marked from the words' confidences). */
  readonly doubtfulWords: DoubtfulWords;
  /** Correct That, and the correction commands said alone. */
  readonly correctThat: CorrectThat;
  /** The runs' audio, kept in memory for Play Back. */
  readonly playBack: PlayBack;
}

interface ProofreadRun {
  id: number;
  settings: DicteeSettings;
  /** The run's document (the same URI for the whole run). */
  doc(): vscode.TextDocument;
  /** Whether the dictation grammar is on (the correction commands said alone are its). */
  grammar: boolean;
  log: Logger;
}

/** Run `run`'s proofreading and audio, or undefined when the threshold is 0. */
export function proofreadingFor(
  host: ProofreadingServices,
  run: ProofreadRun,
): { proofreading: RunProofreading; audio: RunAudio } | undefined {
  const { id, settings } = run;
  if (settings.proofreadingThreshold <= 0) return undefined;
  const doc = run.doc();
  const audio = host.playBack.keep(doc, id, settings.sampleRate);
  const proofreading = new RunProofreading(
    id,
    run.doc,
    host.doubtfulWords.marksFor(doc, settings.proofreadingThreshold),
    host.doubtfulWords,
    run.grammar ? { language: settings.language, run: (a) => void host.correctThat.spoken(run.doc(), a) } : undefined,
    () => {
      run.log.warn(
        `run ${id}: several utterances in a row came back with very low confidence (another language than ${settings.language}?)`,
      );
      tellWrongLanguage(settings.language);
    },
    audio,
  );
  return { proofreading, audio };
}

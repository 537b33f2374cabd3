/**
 * What the end-to-end tests read and click, in the display language the suite runs VS Code in: French,
 * as the radiologists and lawyers Dictée is for have it. VS Code's own words stay English (its language
 * pack cannot be downloaded here: see lib/codeServer.ts); Dictée's are its French translations
 * (package.nls.fr.json, l10n/bundle.l10n.fr.json).
 */

/** The display language of the suite's code-server. */
export const LOCALE = 'fr';

export const UI = {
  startCommand: 'Dictée: Démarrer la dictée',
  stopCommand: 'Dictée: Arrêter la dictée',
  setApiKeyCommand: 'Dictée: Définir la clé API',
  selectMicrophoneCommand: 'Dictée: Choisir le microphone',
  transcribeCommand: 'Dictée: Transcrire un fichier audio…',
  getStartedCommand: 'Dictée: Prise en main',
  /** The English original of a command, shown under its French title in the palette. */
  startCommandOriginal: 'Dictee: Start Dictation',
  micStepTitle: 'Choisir et tester le microphone',
  testMicrophone: 'Tester le microphone',
  micTestRunning: /test du microphone/i,
  micWorks: /le microphone fonctionne/i,
  systemDefault: 'Microphone par défaut du système',
  transcribing: /transcription de dictation\.wav/i,
  keySaved: /clé API vérifiée et enregistrée/i,
  keyRefusedOnSet: /a refusé cette clé API/i,
  keyRefusedOnRun: /a refusé la clé API/i,
  setApiKeyButton: 'Définir la clé API',
  pauseLink: 'Pause',
  resumeLink: 'Reprendre',
  noRecorder: /l'enregistreur audio « sox »/i,
  /** The status item's accessible label and text, by state. */
  idle: /prête/i,
  idleOrError: /prête|erreur/i,
  recording: /enregistre/i,
  paused: /en pause/i,
};

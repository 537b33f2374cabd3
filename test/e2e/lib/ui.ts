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
  /** The title of the file dialog Transcribe Audio File opens. */
  transcribeDialogTitle: 'Dictée\u00a0: transcrire un fichier audio',
  getStartedCommand: 'Dictée: Prise en main',
  whatCanISayCommand: 'Dictée: Que puis-je dire\u00a0?',
  insertTemplateCommand: 'Dictée: Insérer un modèle…',
  acceptDefaultsCommand: 'Dictée: Accepter les valeurs par défaut',
  readLastSentenceCommand: 'Dictée: Lire la dernière phrase dictée',
  insertTemplateTitle: 'insérer un modèle',
  nextFieldButton: 'Champ suivant',
  /** The warning after saving `file` with `n` (> 1) template fields left. */
  fieldsLeftOnSave: (file: string, n: number) =>
    new RegExp(`${file.replace('.', '\\.')} a été enregistré alors qu'il reste ${n} champs de modèle`),
  /** The warning after stopping with one template field left in `file`. */
  oneFieldLeftOnStop: (file: string) =>
    new RegExp(`la dictée s'est arrêtée alors qu'il reste 1 champ de modèle à remplir dans ${file.replace('.', '\\.')}`),
  anyFieldWarning: /champs? de modèle/,
  /** The English original of a command, shown under its French title in the palette. */
  startCommandOriginal: 'Dictee: Start Dictation',
  micStepTitle: 'Choisir et tester le microphone',
  recorderStepTitle: 'Installer un enregistreur',
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
  noRecorder: /l'enregistreur audio «\ssox\s»/i,
  /** The status item's accessible label and text, by state. */
  idle: /prête/i,
  idleOrError: /prête|erreur/i,
  recording: /enregistre/i,
  paused: /en pause/i,
  /** The status item's text while a run stops, and while a file sent to its end has its last words written. */
  stoppingText: /arrêt/i,
  finishingFileText: /transcription…/i,
};

/**
 * The `dictee.*` settings and the `configure` fields they stand for. Pure (no `vscode`), so that the
 * mapping is tested in plain Node; `settings.ts` reads the values through VS Code.
 */
import type { ClientConfig, Language, Preset, Specialty } from '../protocol/config';
import {
  DEFAULTS,
  LANGUAGES,
  MAX_KEYTERMS,
  MAX_KEYTERM_CHARS,
  PRESETS,
  SPECIALTIES,
  DEFAULT_SAMPLE_RATE,
  SUPPORTED_ENCODING,
} from '../protocol/config';
import { DEFAULT_SERVER_URL } from '../protocol/http';
import { DEFAULT_RECORDER, RECORDERS, type RecorderName } from '../audio/spawn';
import { normaliseGrammarSettings, type GrammarSettings } from './grammarSettings';
import { ENGLISH, type L10n } from './l10nText';
import type { FormatOptions } from '../dictation';

/** The advanced settings (`dictee.advanced.<key>`) and the `configure` field each one sets. */
export const ADVANCED_FIELDS = {
  audioDurationThreshold: 'audio_duration_threshold',
  silenceThreshold: 'silence_threshold',
  maxBufferSize: 'max_buffer_size',
  flushTimeout: 'flush_timeout',
  engineEndpointing: 'engine_endpointing',
  enableFinalProofreading: 'enable_final_proofreading',
  stopDelay: 'stop_delay',
} as const;

type AdvancedKey = keyof typeof ADVANCED_FIELDS;
export type AdvancedValues = { [K in AdvancedKey]?: K extends 'enableFinalProofreading' ? boolean : number };

/** `dictee.autoPunctuation`: `auto` is off while the dictation grammar (spoken punctuation) is on. */
const AUTO_PUNCTUATION_VALUES = ['auto', 'on', 'off'] as const;
export type AutoPunctuationSetting = (typeof AUTO_PUNCTUATION_VALUES)[number];

/** `dictee.language`: a language, or `auto` (the language of VS Code's interface). */
const LANGUAGE_SETTING_VALUES = ['auto', ...LANGUAGES] as const;

/**
 * The dictation language for `auto`: VS Code's display language (`fr`, `fr-ca`, `de-ch`…) when Dictée
 * has it, else English.
 */
export function languageForUi(uiLanguage: string | undefined): Language {
  const base = (uiLanguage ?? '').toLowerCase().split(/[-_]/)[0] ?? '';
  return (LANGUAGES as readonly string[]).includes(base) ? (base as Language) : 'en';
}

/** `dictee.audio.source`: where a run's audio comes from. */
const AUDIO_SOURCE_VALUES = ['auto', 'recorder', 'browser'] as const;
export type AudioSourceSetting = (typeof AUDIO_SOURCE_VALUES)[number];

/** `dictee.mode`: a command starts and stops dictation, or (in the capture page) a key held down records. */
const MODE_VALUES = ['toggle', 'pushToTalk'] as const;
export type DictationMode = (typeof MODE_VALUES)[number];

/** `dictee.pushToTalk.key`: a `KeyboardEvent.code` (`Space`, `F9`, `KeyR`, `ControlRight`…). */
const DEFAULT_PUSH_TO_TALK_KEY = 'Space';

/** What `auto` looks at: where the extension host runs, and whether it has a recorder. */
interface AudioHost {
  /** VS Code for the Web (code-server, Codespaces in a browser): `vscode.env.uiKind === UIKind.Web`. */
  web: boolean;
  /** `vscode.env.remoteName` (SSH, WSL, a container…), when the extension host is not the user's machine. */
  remoteName: string | undefined;
  /** The recorder of the settings is on the extension host's PATH. */
  recorderFound: boolean;
}

/**
 * The source a run records from: the setting, or for `auto` the capture page wherever the extension host
 * cannot record the user (VS Code for the Web, a remote host, no recorder), else the recorder.
 */
export function chooseAudioSource(setting: AudioSourceSetting, host: AudioHost): 'recorder' | 'browser' {
  if (setting !== 'auto') return setting;
  return host.web || (host.remoteName !== undefined && host.remoteName !== '') || !host.recorderFound ? 'browser' : 'recorder';
}

export interface DicteeSettings {
  serverUrl: string;
  language: Language;
  /** The language follows VS Code's display language (`dictee.language` is `auto`). */
  languageAuto: boolean;
  /** Announce each committed sentence to screen readers (start and stop are always announced). */
  announceSentences: boolean;
  specialty: Specialty;
  preset: Preset;
  sampleRate: number;
  recorder: RecorderName;
  device: string;
  /** `dictee.audio.source`. */
  audioSource: AudioSourceSetting;
  /** `dictee.mode`. */
  mode: DictationMode;
  /** `dictee.pushToTalk.key`, a `KeyboardEvent.code`. */
  pushToTalkKey: string;
  /** `dictee.dictationMicrophone.buttons`, as set (audio/browser/dictationButtons.ts reads it). */
  micButtons: unknown;
  /** Only the advanced values the user set: unset ones are left to the preset and the service. */
  advanced: AdvancedValues;
  /** The dictation grammar, the vocabulary and the templates folder (grammarSettings.ts). */
  grammar: GrammarSettings;
  /** `dictee.autoPunctuation`. */
  autoPunctuation: AutoPunctuationSetting;
  /**
   * `dictee.proofreading.threshold`: words the engine is less sure of than this (0–1) are marked as
   * doubtful; 0 turns marking off (and the service is not asked for the details).
   */
  proofreadingThreshold: number;
}

/**
 * `dictee.proofreading.threshold` when unset or invalid: with pocketsphinx, two thirds of the errors of the
 * proofread text on at most a quarter of its words (docs/benchmarks.md, "Details on the wire").
 */
export const DEFAULT_PROOFREADING_THRESHOLD = 0.4;

/** The setting a `configure` field comes from (`silence_threshold` → `dictee.advanced.silenceThreshold`). */
export function settingForField(field: string | undefined): string | undefined {
  if (!field) return undefined;
  const f = field.replace(/^config\./, '');
  switch (f) {
    case 'language':
      return 'dictee.language';
    case 'specialty':
      return 'dictee.specialty';
    case 'preset':
      return 'dictee.preset';
    case 'sample_rate':
    case 'encoding':
      return 'dictee.advanced.sampleRate';
    case 'serverUrl':
      return 'dictee.serverUrl';
    case 'auto_punctuation':
      return 'dictee.autoPunctuation';
    case 'details':
      return 'dictee.proofreading.threshold';
  }
  if (f === 'keyterms' || f.startsWith('keyterms.')) return 'dictee.vocabulary';
  for (const [key, name] of Object.entries(ADVANCED_FIELDS)) {
    if (name === f) return `dictee.advanced.${key}`;
  }
  return undefined;
}

function oneOf<T extends string>(values: readonly T[], v: unknown, fallback: T): T {
  return typeof v === 'string' && (values as readonly string[]).includes(v) ? (v as T) : fallback;
}

/**
 * Normalises raw setting values (as read from VS Code, possibly hand-edited JSON of any type) into
 * typed settings. Invalid enum values fall back to the default; invalid numbers are passed on as they
 * are so that the service names the field in a CONFIG_ERROR rather than Dictée silently changing them.
 */
export function normaliseSettings(raw: Record<string, unknown>, l10n: L10n = ENGLISH): DicteeSettings {
  const advanced: AdvancedValues = {};
  for (const key of Object.keys(ADVANCED_FIELDS) as AdvancedKey[]) {
    const v = raw[`advanced.${key}`];
    if (v === undefined || v === null) continue;
    (advanced as Record<string, unknown>)[key] = v;
  }
  const url = typeof raw.serverUrl === 'string' && raw.serverUrl.trim() !== '' ? raw.serverUrl.trim() : DEFAULT_SERVER_URL;
  // `advanced.sampleRate`, or the setting of earlier versions (`sampleRate`) when only that one is set.
  const rate = raw['advanced.sampleRate'] ?? raw.sampleRate;
  const languageSetting = oneOf(LANGUAGE_SETTING_VALUES, raw.language, 'auto');
  return {
    serverUrl: url,
    language: languageSetting === 'auto' ? languageForUi(typeof raw.uiLanguage === 'string' ? raw.uiLanguage : undefined) : languageSetting,
    languageAuto: languageSetting === 'auto',
    announceSentences: raw['accessibility.announceSentences'] === true,
    specialty: oneOf(SPECIALTIES, raw.specialty, DEFAULTS.specialty),
    preset: oneOf(PRESETS, raw.preset, DEFAULTS.preset),
    sampleRate: typeof rate === 'number' && Number.isInteger(rate) ? rate : DEFAULT_SAMPLE_RATE,
    recorder: oneOf(RECORDERS, raw['audio.recorder'], DEFAULT_RECORDER),
    device: typeof raw['audio.device'] === 'string' ? raw['audio.device'].trim() : '',
    audioSource: oneOf(AUDIO_SOURCE_VALUES, raw['audio.source'], 'auto'),
    mode: oneOf(MODE_VALUES, raw.mode, 'toggle'),
    micButtons: raw['dictationMicrophone.buttons'],
    pushToTalkKey:
      typeof raw['pushToTalk.key'] === 'string' && /^[A-Za-z][A-Za-z0-9]{0,31}$/.test(raw['pushToTalk.key'].trim())
        ? raw['pushToTalk.key'].trim()
        : DEFAULT_PUSH_TO_TALK_KEY,
    advanced,
    grammar: normaliseGrammarSettings(raw, l10n),
    autoPunctuation: oneOf(AUTO_PUNCTUATION_VALUES, raw.autoPunctuation, 'auto'),
    proofreadingThreshold: proofreadingThreshold(raw['proofreading.threshold']),
  };
}

function proofreadingThreshold(v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) return DEFAULT_PROOFREADING_THRESHOLD;
  return Math.min(1, Math.max(0, v));
}

/**
 * Whether the service keeps a model's own punctuation (`auto_punctuation`). Dragon's rule: automatic
 * punctuation is off while spoken punctuation (the dictation grammar) is on, so that "virgule" is the
 * only comma.
 */
function autoPunctuationFor(s: Pick<DicteeSettings, 'autoPunctuation' | 'grammar'>): boolean {
  return s.autoPunctuation === 'auto' ? !s.grammar.enabled : s.autoPunctuation === 'on';
}

/**
 * The `keyterms` for the session's language: what `dictee.vocabulary` writes (its replacements), once
 * each, those of at most {@link MAX_KEYTERM_CHARS} characters, the first {@link MAX_KEYTERMS}. The
 * vocabulary itself is applied whole, whatever the recogniser was biased towards.
 */
function keytermsFor(s: Pick<DicteeSettings, 'language' | 'grammar'>): string[] {
  const out = new Set<string>();
  for (const written of Object.values(s.grammar.vocabulary[s.language] ?? {})) {
    const term = written.replace(/\s+/gu, ' ').trim();
    if (term === '' || [...term].length > MAX_KEYTERM_CHARS || !/\p{L}/u.test(term)) continue;
    out.add(term);
    if (out.size === MAX_KEYTERMS) break;
  }
  return [...out];
}

/** The dictation grammar's options for text written outside a run (Correct That), when the grammar is on. */
export function grammarOptions(s: Pick<DicteeSettings, 'language' | 'specialty' | 'grammar'>): FormatOptions | undefined {
  const g = s.grammar;
  if (!g.enabled) return undefined;
  return {
    language: s.language,
    specialty: s.specialty,
    vocabulary: g.vocabulary[s.language],
    ...(g.decimalSeparator ? { decimalSeparator: g.decimalSeparator } : {}),
  };
}

/** The `config` of `configure` for these settings. */
export function configFromSettings(s: DicteeSettings): ClientConfig {
  const config: Record<string, unknown> = {
    language: s.language,
    specialty: s.specialty,
    preset: s.preset,
    sample_rate: s.sampleRate,
    encoding: SUPPORTED_ENCODING,
    auto_punctuation: autoPunctuationFor(s),
  };
  const keyterms = keytermsFor(s);
  if (keyterms.length) config.keyterms = keyterms;
  // Word confidences and alternatives are asked for only when doubtful words are marked.
  if (s.proofreadingThreshold > 0) config.details = true;
  for (const [key, value] of Object.entries(s.advanced)) {
    if (value === undefined) continue;
    config[ADVANCED_FIELDS[key as AdvancedKey]] = value;
  }
  return config as ClientConfig;
}

/**
 * Whether a server address sends the key and the audio unencrypted to another machine: `http://` or
 * `ws://` to a host that is not this one (127.0.0.0/8, `localhost`, `::1`).
 */
export function cleartextRemote(serverUrl: string): boolean {
  let u: URL;
  try {
    u = new URL(serverUrl);
  } catch {
    return false;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'ws:') return false;
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return !(host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host));
}

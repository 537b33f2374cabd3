/**
 * The `configure` fields (spec 2.4): enums, defaults, bounds and presets.
 * Defaults are the spec's; bounds and preset values are our decisions (docs/protocol.md).
 */
import { z } from 'zod';
import { LANGUAGES, SPECIALTIES, type Language, type Specialty } from '../shared/vocabulary';

export { LANGUAGES, SPECIALTIES, type Language, type Specialty };
export const PRESETS = ['balanced', 'low_latency', 'high_quality'] as const;
/** The only encoding any engine of ours takes. Other strings pass validation and fail with INIT_ERROR. */
export const SUPPORTED_ENCODING = 'pcm_s16le';
export const DEFAULT_SAMPLE_RATE = 16000;

export type Preset = (typeof PRESETS)[number];

/** Numeric bounds of each numeric field, inclusive. */
export const BOUNDS = {
  sample_rate: { min: 8000, max: 48000 },
  audio_duration_threshold: { min: 1, max: 60 },
  silence_threshold: { min: 0.2, max: 10 },
  max_buffer_size: { min: 1, max: 100 },
  flush_timeout: { min: 0.5, max: 60 },
  engine_endpointing: { min: 0.05, max: 5 },
  stop_delay: { min: 0, max: 30 },
} as const;

/** The spec's defaults (the values of the `balanced` preset). */
export const DEFAULTS = {
  language: 'fr' as Language,
  specialty: 'general' as Specialty,
  sample_rate: DEFAULT_SAMPLE_RATE,
  encoding: SUPPORTED_ENCODING,
  preset: 'balanced' as Preset,
  audio_duration_threshold: 15,
  silence_threshold: 2,
  max_buffer_size: 5,
  flush_timeout: 3,
  engine_endpointing: 0.5,
  enable_final_proofreading: true,
  stop_delay: 2,
};

type TimingFields = 'audio_duration_threshold' | 'silence_threshold' | 'flush_timeout' | 'engine_endpointing';

/**
 * What a preset changes. Explicit fields in `configure` always win over the preset.
 * `balanced` is the spec's defaults.
 */
const PRESET_VALUES: Record<Preset, Partial<Pick<EffectiveConfig, TimingFields>>> = {
  balanced: {},
  low_latency: { engine_endpointing: 0.3, silence_threshold: 1.2, flush_timeout: 1.5, audio_duration_threshold: 8 },
  high_quality: { engine_endpointing: 0.8, silence_threshold: 2.5, flush_timeout: 4, audio_duration_threshold: 20 },
};

const num = (field: keyof typeof BOUNDS) =>
  z
    .number({ error: `${field} must be a number` })
    .refine(Number.isFinite, { message: `${field} must be a finite number` })
    .refine((v) => v >= BOUNDS[field].min && v <= BOUNDS[field].max, {
      message: `${field} must be between ${BOUNDS[field].min} and ${BOUNDS[field].max}`,
    });

const int = (field: keyof typeof BOUNDS) =>
  z
    .number({ error: `${field} must be an integer` })
    .int({ message: `${field} must be an integer` })
    .refine((v) => v >= BOUNDS[field].min && v <= BOUNDS[field].max, {
      message: `${field} must be between ${BOUNDS[field].min} and ${BOUNDS[field].max}`,
    });

const oneOf = <T extends readonly [string, ...string[]]>(field: string, values: T) =>
  z.enum(values, { error: `${field} must be one of ${values.join(', ')}` });

/**
 * Highest `seq` the protocol allows (2^31 − 1: about 68 years of ten events a second). `resume.last_seq`
 * above it is a CONFIG_ERROR; so, for a session the service holds, is anything above the session's
 * highest issued `seq`.
 */
const MAX_SEQ = 2 ** 31 - 1;

/** `keyterms` (ours): at most this many terms, each of at most {@link MAX_KEYTERM_CHARS} characters. */
export const MAX_KEYTERMS = 100;
export const MAX_KEYTERM_CHARS = 50;

const KeytermsSchema = z
  .array(
    z
      .string({ error: 'keyterms must hold strings' })
      .refine((t) => t.trim() !== '', { message: 'keyterms must not hold an empty term' })
      .refine((t) => [...t].length <= MAX_KEYTERM_CHARS, { message: `keyterms: a term has at most ${MAX_KEYTERM_CHARS} characters` }),
    { error: 'keyterms must be an array of strings' },
  )
  .max(MAX_KEYTERMS, { message: `keyterms holds at most ${MAX_KEYTERMS} terms` });

/** Resume request (our extension; optional for clients). */
export const ResumeSchema = z.strictObject(
  {
    session_id: z.string({ error: 'resume.session_id must be a string' }).min(1).max(200),
    last_seq: z
      .number({ error: 'resume.last_seq must be an integer' })
      .int({ message: 'resume.last_seq must be an integer' })
      .min(0, { message: 'resume.last_seq must be 0 or more' })
      .max(MAX_SEQ, { message: `resume.last_seq must be at most ${MAX_SEQ}` }),
  },
  {
    error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown field resume.${iss.keys.join(', resume.')}` : 'resume must be an object'),
  },
);
export type ResumeRequest = z.infer<typeof ResumeSchema>;

/** The `config` object of `configure`. Unknown fields are rejected (CONFIG_ERROR naming the field). */
export const ConfigSchema = z.strictObject(
  {
    language: oneOf('language', LANGUAGES).optional(),
    specialty: oneOf('specialty', SPECIALTIES).optional(),
    sample_rate: int('sample_rate').optional(),
    encoding: z.string({ error: 'encoding must be a string' }).min(1, { message: 'encoding must not be empty' }).max(64).optional(),
    preset: oneOf('preset', PRESETS).optional(),
    audio_duration_threshold: num('audio_duration_threshold').optional(),
    silence_threshold: num('silence_threshold').optional(),
    max_buffer_size: int('max_buffer_size').optional(),
    flush_timeout: num('flush_timeout').optional(),
    engine_endpointing: num('engine_endpointing').optional(),
    enable_final_proofreading: z.boolean({ error: 'enable_final_proofreading must be a boolean' }).optional(),
    stop_delay: num('stop_delay').optional(),
    /** Ours: words and phrases the recogniser is biased towards (docs/protocol.md). */
    keyterms: KeytermsSchema.optional(),
    /** Ours: keep the punctuation and casing a model writes by itself (default true). */
    auto_punctuation: z.boolean({ error: 'auto_punctuation must be a boolean' }).optional(),
    /** Ours: chunks carry their place in the audio, word times and confidences, alternatives (default false). */
    details: z.boolean({ error: 'details must be a boolean' }).optional(),
    resume: ResumeSchema.optional(),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown field ${iss.keys.join(', ')}` : 'config must be an object') },
);

export type ClientConfig = z.infer<typeof ConfigSchema>;

/** Every field resolved: what the session runs with. */
export interface EffectiveConfig {
  language: Language;
  specialty: Specialty;
  sample_rate: number;
  encoding: string;
  preset: Preset;
  audio_duration_threshold: number;
  silence_threshold: number;
  max_buffer_size: number;
  flush_timeout: number;
  engine_endpointing: number;
  enable_final_proofreading: boolean;
  stop_delay: number;
  /** Ours. Absent in configurations stored before it existed: read it with {@link keytermsOf}. */
  keyterms?: string[];
  /** Ours. Absent in configurations stored before it existed: read it with {@link autoPunctuationOf}. */
  auto_punctuation?: boolean;
  /** Ours. Absent unless the `configure` asked for it: read it with {@link detailsOf}. */
  details?: boolean;
}

/** Whether the session's chunks carry details (times, word confidences, alternatives). */
export function detailsOf(config: Pick<EffectiveConfig, 'details'>): boolean {
  return config.details === true;
}

/** The session's keyterms (none when the configuration has none). */
export function keytermsOf(config: Pick<EffectiveConfig, 'keyterms'>): readonly string[] {
  return config.keyterms ?? [];
}

/** Whether the engine keeps the punctuation and casing its model writes (the default). */
export function autoPunctuationOf(config: Pick<EffectiveConfig, 'auto_punctuation'>): boolean {
  return config.auto_punctuation !== false;
}

/** Thrown by {@link resolveConfig} when fields are individually valid but contradict each other. */
export class ConfigConflictError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Applies preset then explicit fields over the defaults, and checks the rules between fields:
 * the short pause (`engine_endpointing`) must be shorter than the sentence pause (`silence_threshold`).
 */
export function resolveConfig(config: ClientConfig): EffectiveConfig {
  const preset = config.preset ?? DEFAULTS.preset;
  const out: EffectiveConfig = { ...DEFAULTS, ...PRESET_VALUES[preset], preset };
  for (const [k, v] of Object.entries(config)) {
    if (k === 'resume' || v === undefined) continue;
    (out as unknown as Record<string, unknown>)[k] = Array.isArray(v) ? [...(v as unknown[])] : v;
  }
  if (out.engine_endpointing >= out.silence_threshold) {
    const field = config.engine_endpointing !== undefined ? 'engine_endpointing' : 'silence_threshold';
    throw new ConfigConflictError(
      field,
      `engine_endpointing (${out.engine_endpointing} s) must be shorter than silence_threshold (${out.silence_threshold} s)`,
    );
  }
  return out;
}

/** Bytes of one second of mono 16-bit audio at the given rate. */
export function bytesPerSecond(sampleRate: number): number {
  return sampleRate * 2;
}

/**
 * Every message of the WebSocket protocol, in both directions, as zod schemas with the
 * TypeScript types derived from them. Imports nothing from `vscode` or from the service.
 *
 * Parsing rules:
 * - client → server: top-level objects are strict on `type` and its required fields; unknown
 *   top-level fields are tolerated (forward compatibility), unknown `config` fields are not.
 * - server → client: unknown fields are tolerated everywhere, so that a client keeps working
 *   against a newer service.
 */
import { z } from 'zod';
import { ConfigSchema } from './config';
import { ERROR_CODES } from './errors';

/** Largest binary audio frame the service accepts (bytes). */
export const MAX_AUDIO_FRAME_BYTES = 64 * 1024;
/** Recommended frame: 100 ms of 16 kHz mono s16le. */
export const RECOMMENDED_FRAME_BYTES = 3200;
/** Largest JSON text frame the service accepts (bytes). */
export const MAX_TEXT_FRAME_BYTES = 16 * 1024;

/**
 * Control messages a connection may send: at most this many within any {@link CONTROL_WINDOW_MS}; one
 * more is a PROTOCOL_ERROR (a person pausing and resuming never comes near it).
 */
export const MAX_CONTROL_MESSAGES = 50;
export const CONTROL_WINDOW_MS = 10_000;

/**
 * Bytes of messages the service lets wait for a client that does not read (beyond what the kernel
 * buffers). Past it the connection is dropped with a PROTOCOL_ERROR; the session stays resumable.
 */
export const MAX_UNSENT_BYTES = 1024 * 1024;

export const CONTROL_ACTIONS = ['start', 'stop', 'pause', 'resume'] as const;
export type ControlAction = (typeof CONTROL_ACTIONS)[number];

export const CHUNK_STATUSES = ['streaming', 'interim', 'final'] as const;
export type ChunkStatus = (typeof CHUNK_STATUSES)[number];

// ---------------------------------------------------------------- client → server

export const ConfigureMessageSchema = z.object({
  type: z.literal('configure'),
  config: ConfigSchema.optional(),
});
export const ControlMessageSchema = z.object({
  type: z.literal('control'),
  action: z.enum(CONTROL_ACTIONS, { error: `action must be one of ${CONTROL_ACTIONS.join(', ')}` }),
});
export type ConfigureMessage = z.infer<typeof ConfigureMessageSchema>;
export type ControlMessage = z.infer<typeof ControlMessageSchema>;
export type ClientMessage = ConfigureMessage | ControlMessage;

// ---------------------------------------------------------------- server → client

const seq = z.number().int().min(0);
const index = z.number().int();

export const ConfiguredMessageSchema = z.looseObject({
  type: z.literal('configured'),
  session_id: z.string(),
  /** Our extension: present when the `configure` carried `resume`. */
  resumed: z.boolean().optional(),
  /** Our extension: the highest `seq` the service has issued in this session (before any replay). */
  last_seq: seq.optional(),
  /**
   * Our extension: bytes of session audio the service has accounted for. A resuming client sends
   * its audio from this offset on (the service has lost nothing before it).
   */
  resume_audio_offset: z.number().int().min(0).optional(),
  /** Our extension: the engine serving the session (`simulated` here). */
  engine: z.string().optional(),
  /** Our extension: whether the engine biases recognition towards the `keyterms` of the `configure`. */
  keyterms_applied: z.boolean().optional(),
});

/**
 * Ours (`details`): one word of a chunk, its place in the session's audio and its confidence in [0, 1]
 * (absent when the engine cannot say: a word is then as sure as the client's default).
 */
export const WordDetailSchema = z.looseObject({
  text: z.string(),
  start_ms: z.number().min(0),
  end_ms: z.number().min(0),
  confidence: z.number().min(0).max(1).optional(),
});

/**
 * Ours, sent only to a session that asked for `details`: the chunk's place in the session's audio
 * (`start_ms`, `end_ms`), its words, and other readings of the whole chunk (best first, at most 5).
 */
const chunkDetails = {
  start_ms: z.number().min(0).optional(),
  end_ms: z.number().min(0).optional(),
  words: z.array(WordDetailSchema).optional(),
  alternatives: z.array(z.string()).max(5).optional(),
};

export const TranscriptMessageSchema = z.looseObject({
  type: z.literal('transcript'),
  status: z.enum(CHUNK_STATUSES),
  text: z.string(),
  id: z.string(),
  index,
  seq,
  ...chunkDetails,
});

const ChunkSchema = z.looseObject({
  id: z.string(),
  index,
  text: z.string(),
  status: z.string(),
  ...chunkDetails,
});

export const BatchReplaceMessageSchema = z.looseObject({
  type: z.literal('batch.replace'),
  data: z.looseObject({
    target_ids: z.array(z.string()),
    new_chunk: ChunkSchema,
  }),
  seq,
});

export const MetricsSchema = z.looseObject({
  total_chunks: z.number().int().min(0),
  session_duration: z.number().min(0),
});

const StatusMessageSchema = z.looseObject({
  type: z.literal('status'),
  state: z.string(),
  message: z.string().optional(),
  metrics: MetricsSchema.optional(),
});

const ErrorMessageSchema = z.looseObject({
  type: z.literal('error'),
  code: z.string(),
  message: z.string(),
  retry_after_ms: z.number().int().min(0).optional(),
  session_id: z.string().optional(),
});

export const ServerMessageSchema = z.discriminatedUnion('type', [
  ConfiguredMessageSchema,
  TranscriptMessageSchema,
  BatchReplaceMessageSchema,
  StatusMessageSchema,
  ErrorMessageSchema,
]);

export type ConfiguredMessage = z.infer<typeof ConfiguredMessageSchema>;
export type TranscriptMessage = z.infer<typeof TranscriptMessageSchema>;
type Chunk = z.infer<typeof ChunkSchema>;
export type WordDetail = z.infer<typeof WordDetailSchema>;
export type BatchReplaceMessage = z.infer<typeof BatchReplaceMessageSchema>;
export type Metrics = z.infer<typeof MetricsSchema>;
type StatusMessage = z.infer<typeof StatusMessageSchema>;
type ErrorMessage = z.infer<typeof ErrorMessageSchema>;
export type ServerMessage = z.infer<typeof ServerMessageSchema>;

// ---------------------------------------------------------------- what the service sends

/**
 * The named fields of a server → client message type, without the index signature of its loose schema:
 * the service's messages are built with these, so that tsc rejects a field the protocol does not have.
 */
type Fields<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

/** The metrics the service sends: the spec's, and ours (*ext*, docs/protocol.md). */
export type SentMetrics = Fields<Metrics> & {
  /** Audio frames discarded (sent while paused or after `stop`). */
  discarded_chunks: number;
  /** Seconds of audio transcribed. */
  audio_seconds: number;
  /** `final` transcript messages sent. */
  final_chunks: number;
};

/** `configured`, with the engine's languages (*ext*). */
export type OutgoingConfigured = Fields<ConfiguredMessage> & { languages: readonly string[] };
export type OutgoingTranscript = Fields<TranscriptMessage>;
export type OutgoingBatchReplace = Fields<BatchReplaceMessage>;

/** `status` as the service sends it: stopping or stopped, with its metrics; `resumable` (*ext*) at a shutdown. */
export type OutgoingStatus = Omit<Fields<StatusMessage>, 'state' | 'metrics'> & {
  state: 'stopping' | 'stopped';
  metrics: SentMetrics;
  resumable?: true;
};

/** What the service sends in `error` (all fields always present except session_id before one exists). */
export interface OutgoingError {
  type: 'error';
  code: (typeof ERROR_CODES)[number];
  message: string;
  retry_after_ms: number;
  session_id?: string;
}

/** Every message the service sends (an event kept in storage goes out again as the JSON it was kept as). */
export type OutgoingMessage = OutgoingConfigured | OutgoingTranscript | OutgoingBatchReplace | OutgoingStatus | OutgoingError;

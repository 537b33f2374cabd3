/**
 * The example client: streams an audio file to the Live Transcription Service through DictationSession
 * and prints every transcript/batch.replace event, then the committed text and the metrics.
 *
 *   DICTEE_API_KEY=svc_test_… npm run client -- file.wav [--server URL] [--language L]
 *       [--specialty general] [--preset balanced] [--realtime | --fast] [--verbose]
 */
import { DEFAULTS, LANGUAGES, PRESETS, SPECIALTIES, type ClientConfig } from '../protocol/config';
import { DEFAULT_SERVER_URL, redactKey } from '../protocol/http';
import { RECOMMENDED_FRAME_BYTES } from '../protocol/messages';
import { AudioInputError, readClientAudio } from './audioFile';
import { adviceFor, DictationError } from './errors';
import { servedLanguages } from './http';
import { chooseServer, runningStartService } from './serverChoice';
import { chooseLanguage, languageRefusal } from './languages';
import { DictationSession } from './session';
import { TranscriptModel } from './transcript';
import { UsageError, oneOf, parseCommandLine } from '../shared/args';
import { errorMessage } from '../shared/errors';
import type { Logger } from '../shared/logger';

const USAGE = `usage: npm run client -- FILE.wav [options]

Streams an audio file to the Live Transcription Service and prints the transcript events, then the
committed text and the session metrics. A WAV file of 16-bit PCM, mono, 16 kHz is sent as it is; any
other (another WAV format, MP3, FLAC, OGG…) is converted by sox first, which must then be installed.

The API key is read from the environment variable DICTEE_API_KEY (never from the command line).

options:
  --server URL        service URL (else env DICTEE_SERVER_URL, else the service npm start is
                      running from this clone, else ${DEFAULT_SERVER_URL}); the one used is printed
  --language L        ${LANGUAGES.join('|')} (default: the service's language when it serves one
                      only, else ${DEFAULTS.language} when it serves it, else the first it serves)
  --specialty S       ${SPECIALTIES.join('|')} (default ${DEFAULTS.specialty})
  --preset P          ${PRESETS.join('|')} (default ${DEFAULTS.preset})
  --realtime          send one 100 ms frame every 100 ms (default)
  --fast              send the frames as fast as the connection takes them
  --verbose           print the session log on stderr
  -h, --help          this help`;

interface CliOptions {
  file: string;
  server: string;
  /** Why this server: the flag, the environment, npm start's service, or the default. */
  serverWhy: string;
  config: Omit<ClientConfig, 'resume'>;
  realtime: boolean;
  verbose: boolean;
  help: boolean;
}

const OPTIONS = {
  server: { type: 'string' },
  language: { type: 'string' },
  specialty: { type: 'string' },
  preset: { type: 'string' },
  realtime: { type: 'boolean' },
  fast: { type: 'boolean' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parseArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  startService: () => string | undefined = runningStartService,
): CliOptions {
  const { values: v, positionals, order } = parseCommandLine(argv, OPTIONS, true);
  const config: Omit<ClientConfig, 'resume'> = {};
  if (v.language !== undefined) config.language = oneOf('--language', v.language, LANGUAGES);
  if (v.specialty !== undefined) config.specialty = oneOf('--specialty', v.specialty, SPECIALTIES);
  if (v.preset !== undefined) config.preset = oneOf('--preset', v.preset, PRESETS);
  const help = v.help === true;
  if (positionals.length > 1) throw new UsageError(`only one file, got ${positionals.map((f) => JSON.stringify(f)).join(' and ')}`);
  const file = positionals[0];
  if (file === undefined && !help) throw new UsageError('an audio file is required');
  const server = chooseServer(v.server, env, startService);
  return {
    file: file ?? '',
    server: server.url,
    serverWhy: server.why,
    config,
    // --realtime and --fast: the last one given wins.
    realtime: order.filter((o) => o === 'realtime' || o === 'fast').pop() !== 'fast',
    verbose: v.verbose === true,
    help,
  };
}

function stderrLogger(verbose: boolean): Logger {
  const line =
    (level: string) =>
    (message: string | Error, ...args: unknown[]) => {
      const text = errorMessage(message);
      process.stderr.write(`${new Date().toISOString()} ${level} ${text}${args.length ? ` ${args.map(String).join(' ')}` : ''}\n`);
    };
  const quiet = (): void => {};
  return {
    trace: quiet,
    debug: verbose ? line('debug') : quiet,
    info: verbose ? line('info') : quiet,
    warn: line('warn'),
    error: line('error'),
  };
}

function short(id: string): string {
  return id.length > 8 ? id.slice(0, 8) : id;
}

async function main(argv: string[]): Promise<number> {
  let opts: CliOptions;
  try {
    opts = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`error: ${e.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const key = process.env.DICTEE_API_KEY?.trim();
  if (!key) {
    process.stderr.write('error: set the API key in the environment variable DICTEE_API_KEY\n');
    return 2;
  }
  let pcm: Buffer;
  try {
    const audio = await readClientAudio(opts.file);
    if (audio.note) process.stderr.write(`${opts.file}: ${audio.note}\n`);
    pcm = audio.pcm;
  } catch (e) {
    if (!(e instanceof AudioInputError)) throw e;
    process.stderr.write(`error: ${opts.file}: ${e.message}\n`);
    return 1;
  }
  process.stderr.write(`server: ${opts.server} (${opts.serverWhy})\n`);
  // The languages the service serves: the default is chosen among them, a --language it lacks is refused here.
  const served = await servedLanguages(opts.server);
  const config = { ...opts.config };
  if (config.language === undefined) {
    const choice = chooseLanguage(served);
    config.language = choice.language;
    process.stderr.write(`language: ${choice.language} (${choice.why}; --language chooses another)\n`);
  } else {
    const refusal = languageRefusal(config.language, served);
    if (refusal) {
      process.stderr.write(`error: ${refusal} (${opts.server}).\nRun again with --language ${chooseLanguage(served).language}.\n`);
      return 1;
    }
  }

  const logger = stderrLogger(opts.verbose);
  let session: DictationSession;
  try {
    session = new DictationSession({ serverUrl: opts.server, apiKey: key, config, logger });
  } catch (e) {
    process.stderr.write(`error: ${errorMessage(e)}\n`);
    return 2;
  }
  const model = new TranscriptModel({ onIgnored: (i) => logger.debug(`ignored: ${i.reason}`) });
  const out = (s: string): void => void process.stdout.write(`${s}\n`);
  session.on('message', (m) => {
    if (m.type === 'transcript') {
      out(`[seq ${m.seq}] ${m.status.padEnd(9)} #${m.index} ${short(m.id)} ${JSON.stringify(m.text)}`);
    } else {
      const ids = m.data.target_ids.map(short).join(',');
      out(
        `[seq ${m.seq}] batch.replace [${ids}] -> #${m.data.new_chunk.index} ${short(m.data.new_chunk.id)} ${JSON.stringify(m.data.new_chunk.text)}`,
      );
    }
    model.apply(m);
  });
  session.on('generation', (g) => {
    model.beginGeneration();
    out(`-- continuing on a new service session ${g.sessionId} (generation ${g.generation})`);
  });
  session.on('reconnecting', (r) => out(`-- reconnecting (attempt ${r.attempt}/${r.maxAttempts}, in ${r.delayMs} ms): ${r.reason}`));
  session.on('configured', (c) => {
    model.dropProvisional();
    out(`-- configured: session ${c.sessionId}${c.resumed ? ' (resumed)' : ''}${c.engine ? `, engine ${c.engine}` : ''}`);
  });
  session.on('warning', (w) => process.stderr.write(`warning: ${w}\n`));
  let fatal: DictationError | undefined;
  session.on('error', (e) => {
    if (e.fatal) fatal = e;
    else process.stderr.write(`service error ${e.code}${e.sessionId ? ` (session ${e.sessionId})` : ''}: ${e.message}\n`);
  });

  let interrupted = false;
  const onSigint = (): void => {
    interrupted = true;
  };
  process.once('SIGINT', onSigint);

  const report = (e: DictationError): number => {
    process.stderr.write(
      `error ${e.code}${e.field ? ` (field ${e.field})` : ''}${e.sessionId ? ` (session ${e.sessionId})` : ''}: ${e.message}\n`,
    );
    process.stderr.write(`${adviceFor(e, { served, languageOption: '--language' })}\n`);
    return 1;
  };

  try {
    logger.info(`streaming ${opts.file} (${(pcm.length / 32000).toFixed(1)} s) to ${opts.server} with key ${redactKey(key)}`);
    const started = session.start();
    // Frames go out at the real-time pace (or at once with --fast); the session buffers until configured.
    try {
      await started;
    } catch (e) {
      if (e instanceof DictationError) return report(e);
      throw e;
    }
    const t0 = Date.now();
    for (let off = 0, n = 0; off < pcm.length && !interrupted; off += RECOMMENDED_FRAME_BYTES, n++) {
      if (fatal) break;
      session.sendAudio(pcm.subarray(off, Math.min(off + RECOMMENDED_FRAME_BYTES, pcm.length)));
      if (opts.realtime) {
        const wait = t0 + (n + 1) * 100 - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      } else if (n % 50 === 49) {
        await new Promise((r) => setImmediate(r));
      }
    }
    if (fatal) return report(fatal);
    const result = await session.stop();
    if (result.reason === 'error' && (result.error ?? fatal)) return report((result.error ?? fatal)!);
    out('');
    out('--- committed text ---');
    out(model.committedText());
    out('---');
    if (result.metrics) {
      out(
        `metrics: total_chunks ${result.metrics.total_chunks}, session_duration ${result.metrics.session_duration} s (session ${result.sessionId ?? '?'})`,
      );
    } else {
      out(`no metrics: the stop ended by ${result.reason}`);
    }
    const stats = session.audioStats;
    if (stats.droppedBytes || stats.unrecoverableBytes) {
      process.stderr.write(`warning: ${stats.droppedBytes + stats.unrecoverableBytes} bytes of audio could not be delivered\n`);
    }
    return result.reason === 'stopped' ? 0 : 1;
  } finally {
    process.removeListener('SIGINT', onSigint);
    session.dispose();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`error: ${errorMessage(e)}\n`);
      process.exitCode = 1;
    },
  );
}

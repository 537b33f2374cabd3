/**
 * `npm run models -- <command>`: the models of the sherpa-onnx engine, the French pocketsphinx model and its language models (see USAGE).
 * Exit codes: 0 done, 1 failed (nothing installed, the reason and what to do said), 2 usage.
 */
import { errorMessage } from '../shared/errors';
import { UsageError, nonEmpty, parseCommandLine } from '../shared/args';
import path from 'node:path';
import { LOCK_FILE, defaultModelsDir, readLockFile, resolveModel } from '../server/engine/sherpa/model';
import { proxyDispatcher } from './download';
import { fetchModel } from './fetch';
import { type InstallResult, importModel, listModels, removeModel } from './install';
import { lmCommand } from './lmCommand';
import { fetchPocketsphinxModel } from './pocketsphinx';
import { esCommand } from './pocketsphinxEsCommand';
import { synthCommand } from './synthCommand';
import { pocketsphinxLanguageModel } from '../server/engine/pocketsphinx/languages';

export const USAGE = `Usage: npm run models -- <command> [options]

Commands:
  list [--json]              the catalogue: languages, size, licence, and what is installed here
                             (--json: one object per model: name, kind, languages, licence, state)
  fetch <name>               download a model from its Hugging Face mirror (else its release archive),
                             check every file's sha256, install it, and write its lock
  import <dir|archive>       install a model brought from another machine (a directory fetched there,
                             or the release .tar.bz2), checked against --lock, its own lock or the catalogue
  remove <name>              delete an installed model (and any download of it left half done)
  verify <name|dir>          hash an installed model's files against its lock, as the service does at start
  fetch pocketsphinx-fr      the French pocketsphinx model (8 kHz acoustic model and dictionary) from the
                             npm package soundswallower@0.6.3, in the registry of your npm configuration
  lm build --language fr --text FILE [FILE…] [--name NAME] [--vocabulary N] [--max-lines N] [--prune T]
                             a trigram language model (ARPA) for pocketsphinx-fr from plain or .gz text,
                             written to DIR/lm-fr/NAME.arpa with its dictionary NAME.dict (NAME default:
                             general; --dictionary-only: no word pronounced by our rules; --prune T: drop
                             the n-grams that raise the perplexity by less than T, e.g. 3e-8: a smaller file)
  lm check FILE.arpa         check that an ARPA language model is well formed
  lm adapt --language fr --from DIR [DIR…] --specialty radiology|cardiology|legal [--weight W] [--name NAME]
                             a domain model learnt from the team's reports (*.md), templates and vocabulary
                             (settings.json's dictee.vocabulary, vocabulary.txt), mixed with lm-fr/general.arpa
                             (W: the domain's weight, default 0.5), written to DIR/lm-fr/<specialty>.arpa
  fetch pocketsphinx-es      the Spanish pocketsphinx model (16 kHz, GPL-3.0) from its pinned GitHub repository
  import pocketsphinx-es DIR the same from a copy of that repository or an installed pocketsphinx-es
  synth <name> --out DIR [--defect D] [--size real]
                             a SYNTHETIC model of a catalogue entry's exact shape (made-up weights: tone
                             bursts decode to known words), for tests; --model DIR takes it. Needs Python 3
                             with onnx (Debian: python3-onnx). D: a defect built in (missing-metadata, …)
                             --size real (Nemotron 3.5 only): its real dimensions, RANDOM int8 weights
                             (~660 MB), to measure cost (npm run bench -- capacity); it recognises nothing

Options:
  --dir DIR        models directory (default: DICTEE_MODELS_DIR, else ~/.cache/dictee/models)
  --lock FILE      a lock shared by a team: fetch and import install exactly the files it pins;
                   a FILE that does not exist yet is written after the fetch
  --revision REV   fetch another revision of the mirror than the catalogue's (the hub's hashes are checked and locked)
  --name NAME      import: which catalogue model the directory or archive is
  --hub URL        the Hugging Face endpoint (default: HF_ENDPOINT, else https://huggingface.co)
  --releases URL   a mirror of the release archives (URL/<model>.tar.bz2)
  --mirror URL     fetch pocketsphinx-es: a host serving the repository's files as raw.githubusercontent.com does
  -h, --help       this help

Downloads go through HTTPS_PROXY / HTTP_PROXY unless NO_PROXY names the host. A download cut short
resumes where it stopped when fetch runs again.
`;

const OPTIONS = {
  dir: { type: 'string' },
  lock: { type: 'string' },
  revision: { type: 'string' },
  name: { type: 'string' },
  hub: { type: 'string' },
  releases: { type: 'string' },
  language: { type: 'string' },
  text: { type: 'string' },
  vocabulary: { type: 'string' },
  'max-lines': { type: 'string' },
  from: { type: 'string' },
  specialty: { type: 'string' },
  weight: { type: 'string' },
  mirror: { type: 'string' },
  out: { type: 'string' },
  defect: { type: 'string' },
  size: { type: 'string' },
  'dictionary-only': { type: 'boolean' },
  prune: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function gib(n: number): string {
  return n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : `${Math.round(n / 1e6)} MB`;
}

function installed(r: InstallResult, out: (s: string) => void): void {
  out(
    r.installed
      ? `installed ${r.dir} (revision ${r.revision}, from ${r.source === 'import' ? 'the import' : r.source === 'hub' ? 'the mirror' : 'the release archive'})\n`
      : `already installed and verified: ${r.dir}\n`,
  );
  out(
    `lock: ${r.lockFile}${r.sharedLockWritten ? ` (also written to ${r.sharedLockWritten}: share it, and fetch with --lock on the other machines)` : ''}\n`,
  );
  out(`start the service with: npm run server -- --engine sherpa-onnx --model ${path.basename(r.dir)}\n`);
}

export async function main(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(s),
  err: (s: string) => void = (s) => process.stderr.write(s),
): Promise<void> {
  const { values: v, positionals } = parseCommandLine(argv, OPTIONS, true);
  if (v.help) {
    out(USAGE);
    return;
  }
  const [cmd, arg, ...extra] = positionals;
  if (cmd === 'lm') {
    await lmCommand(arg, extra, v, out, v.dir !== undefined ? path.resolve(nonEmpty('--dir', v.dir)) : defaultModelsDir());
    return;
  }
  if (arg === 'pocketsphinx-es' && (cmd === 'fetch' || cmd === 'import')) {
    await esCommand(cmd, extra, v, out, err, v.dir !== undefined ? path.resolve(nonEmpty('--dir', v.dir)) : defaultModelsDir());
    return;
  }
  if (extra.length) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  if (cmd === 'synth') {
    await synthCommand(arg, v, out);
    return;
  }
  const modelsDir = v.dir !== undefined ? path.resolve(nonEmpty('--dir', v.dir)) : defaultModelsDir();
  const lock = v.lock !== undefined ? path.resolve(nonEmpty('--lock', v.lock)) : undefined;
  const common = { modelsDir, ...(lock ? { lock } : {}), log: (s: string) => err(`${s}\n`) };
  const needs = (what: string): string => {
    if (!arg) throw new UsageError(`${cmd} needs ${what}`);
    return arg;
  };
  switch (cmd) {
    case 'list': {
      if (v.json) {
        const rows = listModels(common).map(({ entry: e, state, bytes }) => ({
          name: e.name,
          kind: e.kind,
          languages: e.languages,
          licence: e.licence,
          bytes,
          state,
        }));
        out(`${JSON.stringify({ modelsDir, models: rows }, null, 2)}\n`);
        return;
      }
      for (const row of listModels(common)) {
        const e = row.entry;
        out(
          `${e.name}\n  ${e.kind === 'online' ? 'streaming' : 'offline (proofreading)'}; ${e.languages.join(', ')}; ${gib(row.bytes)}; licence: ${e.licence}\n  ${row.state}${e.note ? `; ${e.note}` : ''}\n`,
        );
      }
      out(`\nmodels directory: ${modelsDir}\n`);
      return;
    }
    case 'fetch': {
      const name = needs('a model name (npm run models -- list)');
      const ps = pocketsphinxLanguageModel(name);
      if (ps) {
        const r = await fetchPocketsphinxModel(ps, { ...common, dispatcher: proxyDispatcher(), progressTo: process.stderr });
        out(
          `${r.installed ? 'installed' : 'already installed and verified:'} ${r.dir} (${ps.npm ? `${ps.npm.package}@${ps.npm.version}` : ps.repository?.repo}; licence: ${ps.licence})\n`,
        );
        out(`a language model for it: npm run models -- lm build --language ${ps.language} --text FILE\n`);
        return;
      }
      const r = await fetchModel(name, {
        ...common,
        dispatcher: proxyDispatcher(),
        progressTo: process.stderr,
        ...(v.revision ? { revision: v.revision } : {}),
        ...(v.hub ? { hubUrl: v.hub } : {}),
        ...(v.releases ? { releasesUrl: v.releases } : {}),
      });
      installed(r, out);
      return;
    }
    case 'import': {
      const r = await importModel(needs('a directory or an archive'), { ...common, ...(v.name ? { name: v.name } : {}) });
      installed(r, out);
      return;
    }
    case 'remove': {
      for (const f of removeModel(needs('a model name'), common)) out(`removed ${f}\n`);
      return;
    }
    case 'verify': {
      const target = needs('a model name or directory');
      const m = await resolveModel(target, modelsDir, lock ? { lock: readLockFile(lock) } : {});
      out(`${m.dir}: every file matches its lock (${LOCK_FILE}, revision ${m.revision})\n`);
      return;
    }
    default:
      throw new UsageError(
        cmd
          ? `unknown command ${JSON.stringify(cmd)}`
          : `a command is needed (${['list', 'fetch', 'import', 'remove', 'verify', 'lm', 'synth'].join(', ')})`,
      );
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    if (e instanceof UsageError) {
      process.stderr.write(`error: ${e.message}\n\n${USAGE}`);
      process.exit(2);
    }
    process.stderr.write(`error: ${errorMessage(e)}\n`);
    process.exit(1);
  });
}

/**
 * `npm run models -- <command>`: the models of the sherpa-onnx engine.
 *
 *   list                       the catalogue, and what is installed
 *   fetch <name>               download, verify (size, sha256) and install a catalogue model
 *   import <archive> [--name N] install an archive you have (verified against the catalogue)
 *   verify <dir>               hash an installed model's files against its marker
 *
 * Options: --dir DIR (default DICTEE_MODELS_DIR or ~/.cache/dictee/models), --base-url URL (a mirror
 * holding the archives under their published file names), --catalogue FILE (a JSON catalogue).
 * Exit codes: 0 done, 1 failed (nothing installed), 2 usage.
 */
import { errorMessage } from '../shared/errors';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { MODEL_MARKER, verifiedModel } from '../server/engine/sherpa/model';
import { CATALOGUE, type CatalogueEntry } from './catalogue';
import { ModelInstallError, defaultModelsDir, fetchModel, findEntry, importModel } from './install';

const USAGE = `Usage: npm run models -- <command> [options]

Commands:
  list                          the catalogue, and which models are installed
  fetch <name>                  download, verify (size + sha256) and install a catalogue model
  import <archive> [--name N]   install a .tar.bz2 you have; it must match a pinned catalogue entry,
                                or name an entry the catalogue does not pin yet
  verify <dir>                  check an installed model's files against their recorded sha256

Options:
  --dir DIR          models directory (default: DICTEE_MODELS_DIR, else ~/.cache/dictee/models)
  --base-url URL     fetch archives from this mirror (URL/<archive file name>) instead
  --catalogue FILE   use this JSON catalogue instead of the built-in one
`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const positional: string[] = [];
  const opts: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-h' || a === '--help') {
      process.stdout.write(USAGE);
      return;
    }
    if (['--dir', '--base-url', '--catalogue', '--name'].includes(a)) {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      opts[a.slice(2)] = v;
    } else if (a.startsWith('--')) throw new UsageError(`unknown option ${a}`);
    else positional.push(a);
  }
  const [cmd, arg] = positional;
  const modelsDir = opts.dir ? path.resolve(opts.dir) : defaultModelsDir();
  const catalogue: CatalogueEntry[] = opts.catalogue ? (JSON.parse(readFileSync(opts.catalogue, 'utf8')) as CatalogueEntry[]) : CATALOGUE;
  switch (cmd) {
    case 'list':
      for (const e of catalogue) {
        const installed = existsSync(path.join(modelsDir, e.name, MODEL_MARKER)) ? 'installed' : 'not installed';
        const pin = e.sha256 ? `sha256 ${e.sha256.slice(0, 12)}…, ${e.size} bytes` : 'not pinned: import only';
        process.stdout.write(`${e.name}  [${e.languages.join(', ')}]  ${pin}  ${installed}\n`);
      }
      return;
    case 'fetch': {
      if (!arg) throw new UsageError('fetch needs a model name (see list)');
      let last = 0;
      const r = await fetchModel(findEntry(catalogue, arg), {
        modelsDir,
        ...(opts['base-url'] ? { baseUrl: opts['base-url'] } : {}),
        onProgress: (got, total) => {
          if (got - last >= 8 * 1024 * 1024 || got === total) {
            last = got;
            process.stderr.write(`  ${(got / 1e6).toFixed(1)} / ${total ? (total / 1e6).toFixed(1) : '?'} MB\n`);
          }
        },
      });
      process.stdout.write(r.installed ? `installed ${r.dir}\n` : `already installed and verified: ${r.dir}\n`);
      process.stdout.write(`start the service with: npm run server -- --engine sherpa-onnx --model ${r.dir}\n`);
      return;
    }
    case 'import': {
      if (!arg) throw new UsageError('import needs an archive path');
      const r = await importModel(catalogue, path.resolve(arg), { modelsDir, ...(opts.name ? { name: opts.name } : {}) });
      process.stdout.write(`installed ${r.dir}\n`);
      return;
    }
    case 'verify': {
      if (!arg) throw new UsageError('verify needs a model directory');
      const m = await verifiedModel(arg);
      process.stdout.write(`${m.dir}: every file matches its sha256\n`);
      return;
    }
    default:
      throw new UsageError(cmd ? `unknown command ${cmd}` : 'a command is needed');
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof UsageError) {
    process.stderr.write(`error: ${e.message}\n\n${USAGE}`);
    process.exit(2);
  }
  const known = e instanceof ModelInstallError || (e instanceof Error && e.constructor.name.endsWith('Error'));
  process.stderr.write(`error: ${known ? errorMessage(e) : String(e)}\n`);
  process.exit(1);
});

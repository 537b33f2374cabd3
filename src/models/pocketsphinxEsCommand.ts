/** `npm run models -- fetch pocketsphinx-es` and `import pocketsphinx-es DIR` (pocketsphinxEs.ts). */
import path from 'node:path';
import { UsageError, nonEmpty } from '../shared/args';
import { proxyDispatcher } from './download';
import type { InstallResult } from './install';
import { POCKETSPHINX_ES_SOURCE, fetchPocketsphinxEs, importPocketsphinxEs } from './pocketsphinxEs';

interface EsValues {
  mirror?: string | boolean;
}

export async function esCommand(
  cmd: 'fetch' | 'import',
  extra: string[],
  v: EsValues,
  out: (s: string) => void,
  err: (s: string) => void,
  modelsDir: string,
): Promise<void> {
  const m = POCKETSPHINX_ES_SOURCE;
  let r: InstallResult;
  if (cmd === 'fetch') {
    if (extra.length) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
    r = await fetchPocketsphinxEs({
      modelsDir,
      dispatcher: proxyDispatcher(),
      progressTo: process.stderr,
      log: (s) => err(`${s}\n`),
      ...(typeof v.mirror === 'string' ? { baseUrl: nonEmpty('--mirror', v.mirror) } : {}),
    });
  } else {
    const [dir, ...more] = extra;
    if (!dir) throw new UsageError(`import ${m.name} needs a directory (a copy of ${m.repo}, or an installed ${m.name})`);
    if (more.length) throw new UsageError(`unexpected argument ${JSON.stringify(more[0])}`);
    r = await importPocketsphinxEs(path.resolve(dir), modelsDir);
  }
  out(
    `${r.installed ? 'installed' : 'already installed and verified:'} ${r.dir} (${m.repo}@${m.commit.slice(0, 12)}; licence: ${m.licence})\n`,
  );
}

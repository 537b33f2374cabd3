// Where `npm start` keeps its sample workspace (report.md): outside the clone, so that VS Code offers no
// parent git repository, and one per clone (a short hash of the clone's path in the name), so that two
// clones never share (or overwrite) each other's report. It is kept between runs of the same clone.
import { createHash } from 'node:crypto';
import path from 'node:path';

/** The sample workspace of the clone at `root`, under `tmp` (os.tmpdir()), for user `uid`. */
export function startWorkspace(root, tmp, uid) {
  const clone = createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 8);
  return path.join(tmp, `dictee-start-${uid}`, `${path.basename(path.resolve(root))}-${clone}`, 'workspace');
}

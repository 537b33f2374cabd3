import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
// Before src/extension/commands.ts, which imports vscode (only read here, never run).
import '../helpers/fakeVscodeModule';
import { commandTable } from '../../src/extension/commands';
import { CONTRIBUTED_COMMANDS, INTERNAL_COMMANDS } from '../../src/extension/commandIds';
import { contributedCommands } from '../../scripts/commands';

const ROOT = path.join(__dirname, '..', '..');
const manifest: unknown = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

/** The ids of the command table, as the extension registers them (src/extension/commands.ts loaded over a fake vscode). */
function registeredIds(): string[] {
  // The handlers reach the services only when a command runs: none runs here.
  return Object.keys(commandTable({} as never)).sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

describe('extension commands', () => {
  it('commandIds.generated.ts lists exactly the commands of package.json', () => {
    assert.deepEqual([...CONTRIBUTED_COMMANDS], contributedCommands(manifest));
  });

  it('every contributed command is registered, and every registered command is contributed or internal', () => {
    const registered = registeredIds();
    const contributed = contributedCommands(manifest);
    const internal: string[] = [...INTERNAL_COMMANDS];
    assert.deepEqual(
      contributed.filter((id) => !registered.includes(id)),
      [],
      'contributed in package.json but not registered',
    );
    assert.deepEqual(
      registered.filter((id) => !contributed.includes(id) && !internal.includes(id)),
      [],
      'registered but neither contributed nor internal',
    );
    assert.deepEqual(
      internal.filter((id) => contributed.includes(id) || !registered.includes(id)),
      [],
      'an internal command is contributed, or not registered',
    );
  });

  it('commands are registered only through the table of src/extension/commands.ts', () => {
    const elsewhere = sourceFiles(path.join(ROOT, 'src'))
      .filter((f) => path.relative(ROOT, f) !== path.join('src', 'extension', 'commands.ts'))
      .filter((f) => /\bregisterCommand\s*\(/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(ROOT, f));
    assert.deepEqual(elsewhere, []);
  });
});

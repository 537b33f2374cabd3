/**
 * A fake `vscode` module, for the unit tests that load a module of src/extension/ importing `vscode`
 * only to read what it declares (VS Code itself cannot run in plain Node). Every property, call and
 * construction of the fake gives the fake again: loading works, and nothing of VS Code is simulated.
 * Importing this module makes `require('vscode')` return the fake: import it before the module under test.
 */
import Module from 'node:module';

const FAKE_ID = '<fake vscode module>';

function makeFake(): unknown {
  const handler: ProxyHandler<() => void> = {
    get: (_t, prop) => (prop === 'then' ? undefined : prop === Symbol.toPrimitive ? () => 'fake vscode' : fake),
    apply: () => fake,
    construct: () => fake as object,
  };
  const fake: unknown = new Proxy(function fakeVscode() {}, handler);
  return fake;
}

function installFakeVscode(): void {
  const mod = Module as unknown as {
    _resolveFilename: (request: string, ...rest: unknown[]) => string;
    _cache: Record<string, unknown>;
  };
  const original = mod._resolveFilename;
  mod._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
    return request === 'vscode' ? FAKE_ID : original.call(this, request, ...rest);
  };
  const m = new Module(FAKE_ID);
  m.filename = FAKE_ID;
  m.loaded = true;
  m.exports = makeFake();
  mod._cache[FAKE_ID] = m;
}

installFakeVscode();

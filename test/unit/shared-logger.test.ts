import assert from 'node:assert/strict';
import { rewritingLogger, type Logger } from '../../src/shared/logger';

describe('shared: rewritingLogger', () => {
  it('writes every line, at its level, as the rewrite gives it, read at each line; an Error by its message', () => {
    const lines: string[] = [];
    const add =
      (level: string) =>
      (m: string | Error, ...a: unknown[]) =>
        void lines.push(`${level}|${String(m)}|${a.length}`);
    const base: Logger = { trace: add('trace'), debug: add('debug'), info: add('info'), warn: add('warn'), error: add('error') };
    let id = '-';
    const log = rewritingLogger(base, (m) => `[session ${id}] ${m.replace('secret', '…')}`);
    log.info('one');
    id = 's1';
    log.warn('a secret', { extra: 1 });
    log.error(new Error('boom'));
    log.trace('t');
    log.debug('d');
    assert.deepEqual(lines, [
      'info|[session -] one|0',
      'warn|[session s1] a …|1',
      'error|[session s1] boom|0',
      'trace|[session s1] t|0',
      'debug|[session s1] d|0',
    ]);
  });
});

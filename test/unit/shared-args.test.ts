import assert from 'node:assert/strict';
import { UsageError, nonEmpty, oneOf, parseCommandLine, wholeNumber } from '../../src/shared/args';

const usage = (re: RegExp) => (e: unknown) => e instanceof UsageError && re.test(e.message);

describe('shared: the command-line parser', () => {
  const OPTIONS = { name: { type: 'string' }, loud: { type: 'boolean', short: 'l' } } as const;

  it('reads --flag value, --flag=value, short flags and positionals, and the order the options came in', () => {
    const c = parseCommandLine(['a.wav', '--name', 'x', '-l', '--name=y'], OPTIONS, true);
    assert.deepEqual(c.values, { name: 'y', loud: true });
    assert.deepEqual(c.positionals, ['a.wav']);
    assert.deepEqual(c.order, ['name', 'loud', 'name']);
  });

  it('says what is wrong with a command line', () => {
    assert.throws(() => parseCommandLine(['--nope'], OPTIONS), usage(/^unknown option "--nope"$/));
    assert.throws(() => parseCommandLine(['--name'], OPTIONS), usage(/^--name needs a value$/));
    assert.throws(() => parseCommandLine(['--loud=3'], OPTIONS), usage(/^--loud takes no value$/));
    assert.throws(() => parseCommandLine(['file'], OPTIONS), usage(/^unexpected argument "file"$/));
  });

  it('checks values: whole numbers in range, one of a list, not empty', () => {
    assert.equal(wholeNumber('--n', '12', 1, 20), 12);
    assert.throws(() => wholeNumber('--n', '1.5', 1, 20), usage(/--n needs a whole number, got "1.5"/));
    assert.throws(() => wholeNumber('--n', '30', 1, 20), usage(/--n must be between 1 and 20, got 30/));
    assert.equal(oneOf('--c', 'b', ['a', 'b'] as const), 'b');
    assert.throws(() => oneOf('--c', 'z', ['a', 'b'] as const), usage(/--c must be one of a, b \(got "z"\)/));
    assert.throws(() => nonEmpty('--h', ''), usage(/--h needs a value/));
  });
});

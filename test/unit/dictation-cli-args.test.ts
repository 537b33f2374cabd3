import assert from 'node:assert/strict';
import { parseArgs } from '../../src/dictation/cli';
import { UsageError } from '../../src/shared/args';

describe('dictation: the command line of dist/format.js (the shared parser)', () => {
  it('parses every option, short and long, `--flag value` and `--flag=value`', () => {
    assert.deepEqual(parseArgs([]), {
      language: 'fr',
      specialty: 'general',
      templates: null,
      vocabulary: null,
      eachLine: false,
      help: false,
    });
    assert.deepEqual(parseArgs(['-l', 'en', '--specialty=radiology', '--templates', 'tpl', '--vocabulary=v.json', '--each-line']), {
      language: 'en',
      specialty: 'radiology',
      templates: 'tpl',
      vocabulary: 'v.json',
      eachLine: true,
      help: false,
    });
    assert.equal(parseArgs(['--language=de']).language, 'de');
    assert.equal(parseArgs(['-h']).help, true);
    assert.equal(parseArgs(['--help']).help, true);
  });

  it('refuses what it cannot use with a UsageError that says why', () => {
    const cases: Array<[string[], RegExp]> = [
      [['--language', 'it'], /unknown language "it": use fr, en, es or de/],
      [['--specialty', 'dentistry'], /unknown specialty "dentistry": use general, radiology, cardiology, legal/],
      [['--language'], /--language needs a value/],
      [['--language='], /--language needs a value/],
      [['--templates='], /--templates needs a value/],
      [['--colour'], /unknown option "--colour"/],
      [['--each-line=yes'], /--each-line takes no value/],
      [['stray'], /unexpected argument "stray"/],
    ];
    for (const [argv, message] of cases) {
      assert.throws(
        () => parseArgs(argv),
        (e: unknown) => e instanceof UsageError && message.test(e.message),
        argv.join(' '),
      );
    }
  });
});

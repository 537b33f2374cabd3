/**
 * The language picker (issue 29, defects 3 and 4): a language the service does not serve is chosen only
 * after a warning, the error of the last run goes once the language changes, and the choice is written
 * where Settings shows it, its scope named.
 */
import assert from 'node:assert/strict';
import {
  afterLanguageChange,
  scopeName,
  settingsCommand,
  shownScope,
  unservedWarning,
  writeScope,
} from '../../src/extension/ui/languageChoice';
import { ENGLISH } from '../../src/extension/l10nText';
import type { StatusInfo } from '../../src/extension/ui/statusText';

describe('language picker: an unserved language, the error state, the scope written', () => {
  it('a language the service does not serve needs confirmation, and the warning names what it serves', () => {
    const w = unservedWarning(ENGLISH, 'fr', 'French', ['en'], ['English']);
    assert.equal(
      w,
      'The service does not take dictation in French: it takes English. Dictation in French will fail until the service serves it. Choose French anyway?',
    );
    assert.equal(unservedWarning(ENGLISH, 'en', 'English', ['en'], ['English']), undefined);
    assert.equal(unservedWarning(ENGLISH, 'fr', 'French', ['any'], []), undefined);
    // The service did not say: nothing to warn of.
    assert.equal(unservedWarning(ENGLISH, 'fr', 'French', undefined, []), undefined);
    assert.match(unservedWarning(ENGLISH, 'de', 'German', [], [])!, /does not take dictation in German\. /);
  });

  it("the last run's error goes when the language changes while idle; kept otherwise", () => {
    const failed: StatusInfo = { state: 'idle', elapsedMs: 0, error: 'the service does not take dictation in French', language: 'fr' };
    assert.equal(afterLanguageChange(failed, 'en', true).error, undefined);
    assert.equal(afterLanguageChange(failed, 'en', true).language, 'en');
    assert.equal(afterLanguageChange(failed, 'fr', false).error, failed.error);
    const running: StatusInfo = { ...failed, state: 'recording' };
    assert.equal(afterLanguageChange(running, 'en', true).error, failed.error);
  });

  it('writes the User settings, removing a Remote copy that the User tab would not show', () => {
    // npm start wrote dictee.language into both User and Remote (Machine) settings: VS Code would write Remote.
    assert.deepEqual(writeScope({ globalValue: 'en', globalLocalValue: 'en', globalRemoteValue: 'en' }, true), {
      scope: 'user',
      clearRemote: true,
    });
    assert.deepEqual(writeScope({ globalValue: 'en', globalLocalValue: 'en' }, true), { scope: 'user', clearRemote: false });
    assert.deepEqual(writeScope({ globalRemoteValue: 'en' }, false), { scope: 'user', clearRemote: false });
    assert.deepEqual(writeScope(undefined, true), { scope: 'user', clearRemote: false });
  });

  it('writes the workspace (or folder) settings when they set it: a User value would be overridden', () => {
    assert.deepEqual(writeScope({ globalValue: 'en', workspaceValue: 'fr' }, true), { scope: 'workspace', clearRemote: false });
    assert.deepEqual(writeScope({ workspaceValue: 'fr', workspaceFolderValue: 'de' }, false), { scope: 'folder', clearRemote: false });
  });

  it('Open Settings shows the tab whose value is in effect, and says its name', () => {
    assert.equal(shownScope({ globalLocalValue: 'en', globalRemoteValue: 'fr' }, true), 'remote');
    assert.equal(shownScope({ globalLocalValue: 'en' }, true), 'user');
    assert.equal(shownScope({ globalValue: 'en', workspaceValue: 'fr' }, true), 'workspace');
    assert.equal(settingsCommand('remote'), 'workbench.action.openRemoteSettings');
    assert.equal(settingsCommand('user'), 'workbench.action.openGlobalSettings');
    assert.equal(scopeName(ENGLISH, 'user'), 'User settings');
    assert.equal(scopeName(ENGLISH, 'remote'), 'Remote settings');
  });
});

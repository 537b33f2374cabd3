import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigSchema, DEFAULTS } from '../../src/protocol/config';
import { ADVANCED_FIELDS, configFromSettings, normaliseSettings, settingForField } from '../../src/extension/settingsMap';
import { normaliseGrammarSettings, resolveFolderSetting } from '../../src/extension/grammarSettings';
import { formatElapsed, statusView } from '../../src/extension/statusText';
import { presentError } from '../../src/extension/errorText';
import { displayProvisional } from '../../src/extension/provisionalText';
import { ERROR_CODES } from '../../src/protocol/errors';
import { DEFAULT_SERVER_URL } from '../../src/protocol/http';
import { DEFAULT_RECORDER, RECORDERS } from '../../src/audio/spawn';
import { DictationError, ERROR_ADVICE, type DictationErrorInit } from '../../src/client/errors';

const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  contributes: {
    configuration: { properties: Record<string, { default: unknown; enum?: unknown[]; enumDescriptions?: string[]; markdownDescription?: string }> };
    commands: Array<{ command: string; title: string; category: string; enablement?: string }>;
    keybindings: Array<{ command: string; key: string; mac?: string; when?: string }>;
    colors: Array<{ id: string; defaults: Record<string, string> }>;
  };
  activationEvents: string[];
};

describe('extension pure helpers', () => {
  describe('settings → configure', () => {
    it('defaults give the spec defaults and no advanced field (the preset decides)', () => {
      const s = normaliseSettings({});
      assert.equal(s.serverUrl, 'http://127.0.0.1:8787');
      const c = configFromSettings(s);
      assert.deepEqual(c, { language: 'fr', specialty: 'general', preset: 'balanced', sample_rate: 16000, encoding: 'pcm_s16le' });
      assert.ok(ConfigSchema.safeParse(c).success);
    });

    it('advanced values the user set are sent under their configure names', () => {
      const s = normaliseSettings({ 'advanced.silenceThreshold': 3, 'advanced.enableFinalProofreading': false, 'advanced.stopDelay': null, language: 'en' });
      const c = configFromSettings(s);
      assert.equal(c.silence_threshold, 3);
      assert.equal(c.enable_final_proofreading, false);
      assert.equal('stop_delay' in c, false);
      assert.equal(c.language, 'en');
      assert.ok(ConfigSchema.safeParse(c).success);
    });

    it('an invalid enum falls back to its default; an out-of-range number is passed on for the service to name', () => {
      const s = normaliseSettings({ language: 'xx', preset: 7, 'advanced.silenceThreshold': 99, 'audio.recorder': 'ffmpeg' });
      assert.equal(s.language, 'fr');
      assert.equal(s.preset, 'balanced');
      assert.equal(s.recorder, 'sox');
      assert.equal(configFromSettings(s).silence_threshold, 99);
    });

    it('every configure field maps back to the setting that sets it', () => {
      for (const [key, field] of Object.entries(ADVANCED_FIELDS)) assert.equal(settingForField(field), `dictee.advanced.${key}`);
      assert.equal(settingForField('config.silence_threshold'), 'dictee.advanced.silenceThreshold');
      assert.equal(settingForField('sample_rate'), 'dictee.sampleRate');
      assert.equal(settingForField('language'), 'dictee.language');
      assert.equal(settingForField('serverUrl'), 'dictee.serverUrl');
      assert.equal(settingForField('nonsense'), undefined);
      assert.equal(settingForField(undefined), undefined);
    });
  });

  describe('settings of the dictation grammar', () => {
    it('defaults: the grammar on, the language\'s decimal separator, no vocabulary, no templates folder, no problem', () => {
      const g = normaliseGrammarSettings({});
      assert.deepEqual(g, { enabled: true, decimalSeparator: undefined, vocabulary: { fr: {}, en: {}, es: {}, de: {} }, templatesFolder: '', problems: [] });
      assert.deepEqual(normaliseSettings({}).grammar, g);
      const props = manifest.contributes.configuration.properties;
      assert.equal(props['dictee.grammar.enabled']?.default, true);
      assert.equal(props['dictee.grammar.decimalSeparator']?.default, 'language');
      assert.deepEqual(props['dictee.vocabulary']?.default, {});
      assert.equal(props['dictee.templates.folder']?.default, '');
    });

    it('reads the vocabulary per language and names every entry it cannot use', () => {
      const g = normaliseGrammarSettings({
        'grammar.enabled': false,
        'grammar.decimalSeparator': '.',
        vocabulary: { en: { 'sea tea': 'CT', bad: 3, ' ': 'x' }, xx: { a: 'b' }, fr: 'IRM' },
        'templates.folder': ' ~/templates ',
      });
      assert.equal(g.enabled, false);
      assert.equal(g.decimalSeparator, '.');
      assert.deepEqual(g.vocabulary.en, { 'sea tea': 'CT' });
      assert.deepEqual(g.vocabulary.fr, {});
      assert.equal(g.templatesFolder, '~/templates');
      assert.equal(g.problems.length, 4);
      assert.match(g.problems[0]!, /dictee\.vocabulary\.en: the entry "bad"/);
      assert.match(g.problems.join('\n'), /"xx" is not a language/);
      assert.match(g.problems.join('\n'), /dictee\.vocabulary\.fr: expected an object/);
      assert.match(normaliseGrammarSettings({ 'grammar.decimalSeparator': ';' }).problems[0]!, /dictee\.grammar\.decimalSeparator/);
      assert.match(normaliseGrammarSettings({ vocabulary: [] }).problems[0]!, /dictee\.vocabulary: expected an object by language/);
    });

    it('resolves the templates folder: ~, absolute paths (POSIX, Windows), URIs, relative paths', () => {
      assert.deepEqual(resolveFolderSetting('', '/home/me'), { kind: 'none' });
      assert.deepEqual(resolveFolderSetting('~/modèles', '/home/me'), { kind: 'path', value: '/home/me/modèles' });
      assert.deepEqual(resolveFolderSetting('/srv/templates', '/home/me'), { kind: 'path', value: '/srv/templates' });
      assert.deepEqual(resolveFolderSetting('C:\\Reports\\Templates', 'C:\\Users\\me'), { kind: 'path', value: 'C:\\Reports\\Templates' });
      assert.deepEqual(resolveFolderSetting('\\\\server\\share', 'x'), { kind: 'path', value: '\\\\server\\share' });
      assert.deepEqual(resolveFolderSetting('vscode-remote://ssh-remote+h/srv/t', 'x'), { kind: 'uri', value: 'vscode-remote://ssh-remote+h/srv/t' });
      assert.deepEqual(resolveFolderSetting('templates/radiology', 'x'), { kind: 'relative', value: 'templates/radiology' });
    });
  });

  describe('manifest (package.json contributes)', () => {
    const props = manifest.contributes.configuration.properties;
    it('declares every setting of the issue with the spec defaults, a markdownDescription, and enumDescriptions for enums', () => {
      const expected: Record<string, unknown> = {
        'dictee.serverUrl': 'http://127.0.0.1:8787',
        'dictee.language': 'fr',
        'dictee.specialty': 'general',
        'dictee.preset': 'balanced',
        'dictee.sampleRate': 16000,
        'dictee.audio.recorder': 'sox',
        'dictee.audio.device': '',
      };
      for (const [k, v] of Object.entries(expected)) assert.equal(props[k]?.default, v, k);
      // The manifest and the code share their defaults and the recorder list.
      assert.equal(props['dictee.serverUrl']?.default, DEFAULT_SERVER_URL);
      assert.equal(props['dictee.audio.recorder']?.default, DEFAULT_RECORDER);
      assert.deepEqual(props['dictee.audio.recorder']?.enum, [...RECORDERS]);
      for (const f of ['language', 'specialty', 'preset'] as const) assert.equal(props[`dictee.${f}`]?.default, DEFAULTS[f], f);
      assert.deepEqual(normaliseSettings({}), { ...normaliseSettings({}), serverUrl: DEFAULT_SERVER_URL, language: DEFAULTS.language, specialty: DEFAULTS.specialty, preset: DEFAULTS.preset, sampleRate: DEFAULTS.sample_rate, recorder: DEFAULT_RECORDER });
      for (const [key, field] of Object.entries(ADVANCED_FIELDS)) {
        const p = props[`dictee.advanced.${key}`];
        assert.ok(p, key);
        assert.equal(p.default, (DEFAULTS as Record<string, unknown>)[field], `${key} has the spec default`);
      }
      for (const [k, p] of Object.entries(props)) {
        assert.ok(p.markdownDescription && p.markdownDescription.length > 20, `${k} has a markdownDescription`);
        if (p.enum) assert.equal(p.enumDescriptions?.length, p.enum.length, `${k} enumDescriptions`);
      }
    });

    it('has the thirteen commands in category Dictée, no * activation, a toggle keybinding and the provisional colour', () => {
      const ids = manifest.contributes.commands.map((c) => c.command).sort();
      assert.deepEqual(ids, [
        'dictee.acceptDefaults',
        'dictee.clearApiKey',
        'dictee.insertTemplate',
        'dictee.nextField',
        'dictee.pause',
        'dictee.previousField',
        'dictee.resume',
        'dictee.setApiKey',
        'dictee.showLog',
        'dictee.start',
        'dictee.stop',
        'dictee.toggle',
        'dictee.whatCanISay',
      ]);
      for (const c of manifest.contributes.commands) assert.equal(c.category, 'Dictée');
      assert.ok(!manifest.activationEvents.includes('*'));
      const kb = manifest.contributes.keybindings.find((k) => k.command === 'dictee.toggle');
      assert.equal(kb?.key, 'ctrl+alt+shift+d');
      assert.equal(kb?.mac, 'cmd+alt+shift+d');
      // Next and previous field: only in an editor one can type into, on keys VS Code leaves free (docs/extension.md).
      for (const [command, key] of [['dictee.nextField', 'f'], ['dictee.previousField', 'p']] as const) {
        const k = manifest.contributes.keybindings.find((b) => b.command === command);
        assert.equal(k?.key, `ctrl+alt+shift+${key}`);
        assert.equal(k?.mac, `cmd+alt+shift+${key}`);
        assert.equal(k?.when, 'editorTextFocus && !editorReadonly');
      }
      const color = manifest.contributes.colors.find((c) => c.id === 'dictee.provisionalForeground');
      assert.ok(color && color.defaults.dark && color.defaults.light && color.defaults.highContrast && color.defaults.highContrastLight);
    });
  });

  describe('status bar texts', () => {
    it('formats elapsed time', () => {
      assert.equal(formatElapsed(0), '0:00');
      assert.equal(formatElapsed(12_400), '0:12');
      assert.equal(formatElapsed(61_000), '1:01');
      assert.equal(formatElapsed(3_723_000), '1:02:03');
    });

    it('shows each state with stable texts and the right links', () => {
      assert.equal(statusView({ state: 'idle', elapsedMs: 0 }).text, '$(mic) Dictée');
      assert.equal(statusView({ state: 'connecting', elapsedMs: 0 }).text, '$(loading~spin) Dictée: connecting');
      const rec = statusView({ state: 'recording', elapsedMs: 12_000 });
      assert.equal(rec.text, '$(record) 0:12');
      assert.match(rec.tooltip, /command:dictee\.pause/);
      assert.match(rec.tooltip, /command:dictee\.stop/);
      const paused = statusView({ state: 'paused', elapsedMs: 12_000 });
      assert.equal(paused.text, '$(debug-pause) Paused 0:12');
      assert.match(paused.tooltip, /command:dictee\.resume/);
      assert.equal(statusView({ state: 'recording', elapsedMs: 5000, reconnecting: true }).text, '$(loading~spin) 0:05 reconnecting');
      assert.equal(statusView({ state: 'recording', elapsedMs: 5000, retryInS: 5 }).text, '$(watch) 0:05 retry in 5s');
      const err = statusView({ state: 'idle', elapsedMs: 0, error: 'AUTH_ERROR: refused' });
      assert.equal(err.text, '$(warning) Dictée');
      assert.equal(err.warning, true);
    });

    it('escapes document names in the Markdown tooltip', () => {
      const v = statusView({ state: 'recording', elapsedMs: 0, target: 'a_[b](command:x).md' });
      assert.ok(!v.tooltip.includes('[b](command:x)'));
    });
  });

  describe('error messages', () => {
    const err = (init: Omit<DictationErrorInit, 'fatal'>): DictationError => new DictationError({ ...init, fatal: true });

    it('tells, for every error code, what went wrong, the message, the advice of the table, with an action', () => {
      for (const code of [...ERROR_CODES, 'NETWORK_ERROR', 'TIMEOUT'] as const) {
        const p = presentError(err({ code, message: 'details' }), 'http://h:1');
        assert.ok(p.text.startsWith(`Dictée: ${ERROR_ADVICE[code].summary}`), `${code}: ${p.text}`);
        assert.ok(p.text.includes('(details)'), code);
        assert.ok(p.text.includes(ERROR_ADVICE[code].advice), code);
        assert.ok(p.actions.length > 0, code);
      }
    });

    it('AUTH_ERROR offers Set API Key; CONFIG_ERROR names the setting and opens it; a network error names the address', () => {
      assert.deepEqual(presentError(err({ code: 'AUTH_ERROR', message: 'revoked' }), 'x').actions[0], 'Set API Key');
      assert.equal(
        presentError(err({ code: 'AUTH_ERROR', message: 'API key revoked' }), 'x').text,
        'Dictée: authentication failed (API key revoked). Set a valid API key with the write permission (the one used is missing, unknown, revoked, or lacks it).',
      );
      const c = presentError(err({ code: 'CONFIG_ERROR', message: 'silence_threshold must be between 0.2 and 10', field: 'silence_threshold' }), 'x');
      assert.match(c.text, /dictee\.advanced\.silenceThreshold/);
      assert.equal(c.setting, 'dictee.advanced.silenceThreshold');
      assert.deepEqual(c.actions[0], 'Open Settings');
      const n = presentError(err({ code: 'NETWORK_ERROR', message: 'ECONNREFUSED' }), 'http://h:1');
      assert.equal(n.setting, 'dictee.serverUrl');
      assert.match(n.text, /cannot be reached at http:\/\/h:1 \(ECONNREFUSED\)/);
      assert.match(presentError(err({ code: 'INTERNAL_ERROR', message: 'gave up', sessionId: 's-1' }), 'x').text, /Dictation stopped; what was written stays in the document \(session s-1\)/);
    });
  });

  it('shows newlines of provisional text as pilcrows', () => {
    assert.equal(displayProvisional('one\ntwo\r\nthree\tfour'), 'one ¶ two ¶ three four');
  });
});

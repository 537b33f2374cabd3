import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigSchema, DEFAULTS } from '../../src/protocol/config';
import {
  ADVANCED_FIELDS,
  chooseAudioSource,
  configFromSettings,
  normaliseSettings,
  settingForField,
} from '../../src/extension/settingsMap';
import { normaliseGrammarSettings, resolveFolderSetting } from '../../src/extension/grammarSettings';
import {
  doubtfulView,
  formatElapsed,
  languageRowNote,
  languageView,
  levelBar,
  serves,
  statusView,
} from '../../src/extension/ui/statusText';
import { presentError, warningSentence } from '../../src/extension/run/errorText';
import { ENGLISH } from '../../src/extension/l10nText';
import {
  ASSUMED_LINE_WIDTH,
  displayProvisional,
  PROVISIONAL_MAX_CHARS,
  PROVISIONAL_MIN_CHARS,
  provisionalRoom,
} from '../../src/extension/editor/provisionalText';
import { cleartextRemote, languageForUi } from '../../src/extension/settingsMap';
import { displayKey, effectiveKey } from '../../src/extension/ui/keybindingText';
import { ERROR_CODES } from '../../src/protocol/errors';
import { DEFAULT_SERVER_URL } from '../../src/protocol/http';
import { DEFAULT_RECORDER, RECORDERS } from '../../src/audio/spawn';
import { DictationError, ERROR_ADVICE, type DictationErrorInit } from '../../src/client/errors';

const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  contributes: {
    configuration: {
      properties: Record<
        string,
        { default: unknown; enum?: unknown[]; enumDescriptions?: string[]; markdownDescription?: string; scope?: string }
      >;
    };
    commands: Array<{ command: string; title: string; category: string; enablement?: string; icon?: string }>;
    keybindings: Array<{ command: string; key: string; mac?: string; when?: string }>;
    icons: Record<string, { default: { fontPath: string; fontCharacter: string } }>;
    walkthroughs: Array<{ steps: Array<{ id: string; completionEvents?: string[]; description: string }> }>;
    colors: Array<{ id: string; defaults: Record<string, string> }>;
  };
  activationEvents: string[];
};

describe('extension pure helpers', () => {
  describe('settings → configure', () => {
    it('defaults give the spec defaults and no advanced field (the preset decides); the language follows VS Code', () => {
      const s = normaliseSettings({ uiLanguage: 'fr' });
      assert.equal(s.serverUrl, 'http://127.0.0.1:8787');
      assert.equal(s.languageAuto, true);
      const c = configFromSettings(s);
      assert.deepEqual(c, {
        language: 'fr',
        specialty: 'general',
        preset: 'balanced',
        sample_rate: 16000,
        encoding: 'pcm_s16le',
        auto_punctuation: false,
        details: true,
      });
      assert.ok(ConfigSchema.safeParse(c).success);
    });

    it('dictee.proofreading.threshold: 0.4 by default, kept within 0–1; details are asked for only above 0', () => {
      assert.equal(normaliseSettings({}).proofreadingThreshold, 0.4);
      assert.equal(normaliseSettings({ 'proofreading.threshold': 'high' }).proofreadingThreshold, 0.4);
      assert.equal(normaliseSettings({ 'proofreading.threshold': 1.5 }).proofreadingThreshold, 1);
      assert.equal(normaliseSettings({ 'proofreading.threshold': 0.3 }).proofreadingThreshold, 0.3);
      assert.equal(configFromSettings(normaliseSettings({ 'proofreading.threshold': 0.3 })).details, true);
      assert.equal('details' in configFromSettings(normaliseSettings({ 'proofreading.threshold': 0 })), false);
      assert.equal(settingForField('config.details'), 'dictee.proofreading.threshold');
    });

    it('dictee.autoPunctuation: auto is off while the dictation grammar is on (spoken punctuation), on when it is off; on and off as said', () => {
      const ap = (raw: Record<string, unknown>): unknown => configFromSettings(normaliseSettings(raw)).auto_punctuation;
      assert.equal(ap({}), false);
      assert.equal(ap({ 'grammar.enabled': false }), true);
      assert.equal(ap({ autoPunctuation: 'on' }), true);
      assert.equal(ap({ autoPunctuation: 'off', 'grammar.enabled': false }), false);
      assert.equal(ap({ autoPunctuation: 'sometimes' }), false, 'an unknown value is auto');
      assert.equal(settingForField('config.auto_punctuation'), 'dictee.autoPunctuation');
      assert.equal(settingForField('config.keyterms.3'), 'dictee.vocabulary');
    });

    it("keyterms: what dictee.vocabulary writes in the session's language, once each, at most 100 of at most 50 characters", () => {
      const vocabulary = {
        fr: { 'i r m': 'IRM', irm: 'IRM', 'doli prane': 'Doliprane', long: 'x'.repeat(51), virgule: ',' },
        en: { 'sea tea': 'CT' },
      };
      assert.deepEqual(configFromSettings(normaliseSettings({ language: 'fr', vocabulary })).keyterms, ['IRM', 'Doliprane']);
      assert.deepEqual(configFromSettings(normaliseSettings({ language: 'en', vocabulary })).keyterms, ['CT']);
      assert.equal(
        'keyterms' in configFromSettings(normaliseSettings({ language: 'es', vocabulary })),
        false,
        'none: the field is not sent',
      );
      const many = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`mot ${i}`, `Terme${i}`]));
      const c = configFromSettings(normaliseSettings({ language: 'fr', vocabulary: { fr: many } }));
      assert.equal(c.keyterms?.length, 100);
      assert.ok(ConfigSchema.safeParse(c).success);
    });

    it('advanced values the user set are sent under their configure names', () => {
      const s = normaliseSettings({
        'advanced.silenceThreshold': 3,
        'advanced.enableFinalProofreading': false,
        'advanced.stopDelay': null,
        language: 'en',
      });
      const c = configFromSettings(s);
      assert.equal(c.silence_threshold, 3);
      assert.equal(c.enable_final_proofreading, false);
      assert.equal('stop_delay' in c, false);
      assert.equal(c.language, 'en');
      assert.ok(ConfigSchema.safeParse(c).success);
    });

    it('an invalid enum falls back to its default; an out-of-range number is passed on for the service to name', () => {
      const s = normaliseSettings({
        language: 'xx',
        uiLanguage: 'de-ch',
        preset: 7,
        'advanced.silenceThreshold': 99,
        'audio.recorder': 'ffmpeg',
      });
      assert.equal(s.language, 'de');
      assert.equal(s.languageAuto, true);
      assert.equal(s.preset, 'balanced');
      assert.equal(s.recorder, 'sox');
      assert.equal(configFromSettings(s).silence_threshold, 99);
    });

    it('every configure field maps back to the setting that sets it', () => {
      for (const [key, field] of Object.entries(ADVANCED_FIELDS)) assert.equal(settingForField(field), `dictee.advanced.${key}`);
      assert.equal(settingForField('config.silence_threshold'), 'dictee.advanced.silenceThreshold');
      assert.equal(settingForField('sample_rate'), 'dictee.advanced.sampleRate');
      assert.equal(settingForField('language'), 'dictee.language');
      assert.equal(settingForField('serverUrl'), 'dictee.serverUrl');
      assert.equal(settingForField('nonsense'), undefined);
      assert.equal(settingForField(undefined), undefined);
    });

    it('auto: the display language of VS Code when Dictée has it, else English; an explicit language wins', () => {
      assert.equal(languageForUi('fr'), 'fr');
      assert.equal(languageForUi('fr-CA'), 'fr');
      assert.equal(languageForUi('es-419'), 'es');
      assert.equal(languageForUi('de'), 'de');
      assert.equal(languageForUi('ja'), 'en');
      assert.equal(languageForUi(undefined), 'en');
      const s = normaliseSettings({ language: 'es', uiLanguage: 'fr' });
      assert.equal(s.language, 'es');
      assert.equal(s.languageAuto, false);
    });

    it('the sample rate is an advanced setting; the setting of earlier versions is still read', () => {
      assert.equal(normaliseSettings({}).sampleRate, 16000);
      assert.equal(normaliseSettings({ 'advanced.sampleRate': 8000 }).sampleRate, 8000);
      assert.equal(normaliseSettings({ sampleRate: 22050 }).sampleRate, 22050);
      assert.equal(normaliseSettings({ sampleRate: 22050, 'advanced.sampleRate': 8000 }).sampleRate, 8000);
    });

    it('the audio source: auto chooses the capture page where the extension host cannot record the user', () => {
      const desktop = { web: false, remoteName: undefined, recorderFound: true };
      assert.equal(chooseAudioSource('auto', desktop), 'recorder');
      assert.equal(chooseAudioSource('auto', { ...desktop, web: true }), 'browser');
      assert.equal(chooseAudioSource('auto', { ...desktop, remoteName: 'ssh-remote' }), 'browser');
      assert.equal(chooseAudioSource('auto', { ...desktop, remoteName: '' }), 'recorder');
      assert.equal(chooseAudioSource('auto', { ...desktop, recorderFound: false }), 'browser');
      assert.equal(chooseAudioSource('recorder', { ...desktop, web: true }), 'recorder');
      assert.equal(chooseAudioSource('browser', desktop), 'browser');
      const s = normaliseSettings({});
      assert.deepEqual([s.audioSource, s.mode, s.pushToTalkKey], ['auto', 'toggle', 'Space']);
      const t = normaliseSettings({ 'audio.source': 'browser', mode: 'pushToTalk', 'pushToTalk.key': ' F9 ' });
      assert.deepEqual([t.audioSource, t.mode, t.pushToTalkKey], ['browser', 'pushToTalk', 'F9']);
      const u = normaliseSettings({ 'audio.source': 'sox', mode: 'hold', 'pushToTalk.key': '"><script>' });
      assert.deepEqual([u.audioSource, u.mode, u.pushToTalkKey], ['auto', 'toggle', 'Space']);
    });

    it('warns of a server address that sends the key and audio in clear to another machine', () => {
      for (const u of ['http://dictation.example.org', 'ws://10.0.0.5:8787', 'http://192.168.1.2', 'http://[2001:db8::1]:80'])
        assert.equal(cleartextRemote(u), true, u);
      for (const u of [
        'https://dictation.example.org',
        'wss://x',
        'http://127.0.0.1:8787',
        'http://localhost:1',
        'http://[::1]:8787',
        'http://127.4.5.6',
        'not a url',
      ])
        assert.equal(cleartextRemote(u), false, u);
    });
  });

  describe('settings of the dictation grammar', () => {
    it("defaults: the grammar on, the language's decimal separator, no vocabulary, no templates folder, no problem", () => {
      const g = normaliseGrammarSettings({});
      assert.deepEqual(g, {
        enabled: true,
        decimalSeparator: undefined,
        vocabulary: { fr: {}, en: {}, es: {}, de: {} },
        templatesFolder: '',
        problems: [],
      });
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
      assert.deepEqual(resolveFolderSetting('vscode-remote://ssh-remote+h/srv/t', 'x'), {
        kind: 'uri',
        value: 'vscode-remote://ssh-remote+h/srv/t',
      });
      assert.deepEqual(resolveFolderSetting('templates/radiology', 'x'), { kind: 'relative', value: 'templates/radiology' });
    });
  });

  describe('manifest (package.json contributes)', () => {
    const props = manifest.contributes.configuration.properties;
    // What an English VS Code shows: package.nls.json, with package.nls.en.json over it.
    const nls = {
      ...(JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.nls.json'), 'utf8')) as Record<string, string>),
      ...(JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.nls.en.json'), 'utf8')) as Record<string, string>),
    };
    const text = (v: unknown): string => (typeof v === 'string' ? v.replace(/^%(.+)%$/, (_, k: string) => nls[k] ?? `<missing ${k}>`) : '');

    it('declares every setting with its default, a description in plain words, and enumDescriptions for enums', () => {
      const expected: Record<string, unknown> = {
        'dictee.serverUrl': 'http://127.0.0.1:8787',
        'dictee.language': 'auto',
        'dictee.specialty': 'general',
        'dictee.preset': 'balanced',
        'dictee.audio.recorder': 'sox',
        'dictee.audio.device': '',
        'dictee.accessibility.announceSentences': false,
      };
      for (const [k, v] of Object.entries(expected)) assert.equal(props[k]?.default, v, k);
      // The manifest and the code share their defaults and the recorder list.
      assert.equal(props['dictee.serverUrl']?.default, DEFAULT_SERVER_URL);
      assert.equal(props['dictee.audio.recorder']?.default, DEFAULT_RECORDER);
      assert.deepEqual(props['dictee.audio.recorder']?.enum, [...RECORDERS]);
      for (const f of ['specialty', 'preset'] as const) assert.equal(props[`dictee.${f}`]?.default, DEFAULTS[f], f);
      assert.equal(
        props['dictee.serverUrl']?.scope,
        'application',
        'the server address: user settings only (the User tab), never a workspace',
      );
      assert.deepEqual(normaliseSettings({}), {
        ...normaliseSettings({}),
        serverUrl: DEFAULT_SERVER_URL,
        specialty: DEFAULTS.specialty,
        preset: DEFAULTS.preset,
        sampleRate: DEFAULTS.sample_rate,
        recorder: DEFAULT_RECORDER,
      });
      // Advanced settings default to "the preset decides" (null), never to numbers the preset overrides.
      for (const key of [...Object.keys(ADVANCED_FIELDS), 'sampleRate']) {
        const p = props[`dictee.advanced.${key}`];
        assert.ok(p, key);
        assert.equal(p.default, null, `${key} defaults to null`);
      }
      assert.equal(props['dictee.sampleRate'], undefined, 'the sample rate moved to the advanced settings');
      for (const [k, p] of Object.entries(props)) {
        const d = text(p.markdownDescription);
        assert.ok(d.length > 20, `${k} has a description`);
        assert.doesNotMatch(d, /`[a-z]+_[a-z_]+`/, `${k}: no protocol field names in the description`);
        if (p.enum) assert.equal(p.enumDescriptions?.length, p.enum.length, `${k} enumDescriptions`);
      }
    });

    it('the original titles (package.nls.json) name the category without its accent, so that "Dictee" finds the commands in any other language', () => {
      const original = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.nls.json'), 'utf8')) as Record<string, string>;
      assert.equal(original.category, 'Dictee');
      assert.equal(text('%category%'), 'Dictée');
    });

    it('has its commands in category Dictée, no * activation, keybindings with when clauses, its own icons and the provisional colour', () => {
      // That every contributed command is registered, and every registered one contributed: extension-commands.test.ts.
      for (const c of manifest.contributes.commands) assert.equal(text(c.category), 'Dictée');
      // Not `*`: it would make every window's start wait for Dictée (docs/extension.md, Activation).
      assert.deepEqual(manifest.activationEvents, ['onStartupFinished']);
      const kb = manifest.contributes.keybindings.find((k) => k.command === 'dictee.toggle');
      assert.equal(kb?.key, 'ctrl+alt+shift+d');
      assert.equal(kb?.mac, 'cmd+alt+shift+d');
      // Next and previous field: only in an editor one can type into, on keys VS Code leaves free (docs/extension.md).
      for (const [command, key] of [
        ['dictee.nextField', 'f'],
        ['dictee.previousField', 'p'],
      ] as const) {
        const k = manifest.contributes.keybindings.find((b) => b.command === command);
        assert.equal(k?.key, `ctrl+alt+shift+${key}`);
        assert.equal(k?.mac, `cmd+alt+shift+${key}`);
        assert.equal(k?.when, 'editorTextFocus && !editorReadonly');
      }
      for (const k of manifest.contributes.keybindings) assert.ok(k.when, `${k.command} has a when clause`);
      const esc = manifest.contributes.keybindings.find((k) => k.key === 'escape');
      assert.equal(esc?.command, 'dictee.stop');
      assert.match(esc?.when ?? '', /dictee\.state == recording/);
      assert.match(esc?.when ?? '', /!suggestWidgetVisible/, 'Escape still closes the suggestions first');
      // Pause, resume and stop have icons of their own, not the debugger's.
      for (const c of manifest.contributes.commands) assert.doesNotMatch(c.icon ?? '', /debug-/, c.command);
      for (const [id, icon] of Object.entries(manifest.contributes.icons)) {
        assert.ok(existsSync(path.join(__dirname, '..', '..', icon.default.fontPath)), `${id}: ${icon.default.fontPath}`);
      }
      const color = manifest.contributes.colors.find((c) => c.id === 'dictee.provisionalForeground');
      assert.ok(color && color.defaults.dark && color.defaults.light && color.defaults.highContrast && color.defaults.highContrastLight);
    });

    it('the walkthrough has the recorder, server, key, language, microphone test and first dictation', () => {
      const steps = manifest.contributes.walkthroughs[0]!.steps;
      assert.deepEqual(
        steps.map((s) => s.id),
        ['dictee.recorder', 'dictee.server', 'dictee.apiKey', 'dictee.language', 'dictee.microphone', 'dictee.dictate'],
      );
      const mic = steps.find((s) => s.id === 'dictee.microphone')!;
      assert.match(text(mic.description), /command:dictee\.testMicrophone/);
      assert.match(text(steps[0]!.description), /apt-get install sox/);
      for (const s of steps) assert.ok(s.completionEvents?.length, `${s.id} completes on an event`);
      // A key stored otherwise than by the command (npm start's DICTEE_API_KEY) ticks the key's step too.
      assert.ok(steps.find((s) => s.id === 'dictee.apiKey')!.completionEvents!.includes('onContext:dictee.hasApiKey'));
    });
  });

  describe('status bar texts', () => {
    it('the doubtful-words item: hidden without any, the count otherwise, in words for screen readers', () => {
      assert.equal(doubtfulView(ENGLISH, 0), undefined);
      assert.equal(doubtfulView(ENGLISH, 1)?.text, '$(eye) 1');
      assert.match(doubtfulView(ENGLISH, 1)!.accessibilityLabel, /1 doubtful word\./);
      assert.match(doubtfulView(ENGLISH, 3)!.tooltip, /3 doubtful words in this document/);
    });

    it('formats elapsed time', () => {
      assert.equal(formatElapsed(0), '0:00');
      assert.equal(formatElapsed(12_400), '0:12');
      assert.equal(formatElapsed(61_000), '1:01');
      assert.equal(formatElapsed(3_723_000), '1:02:03');
    });

    it('shows each state with its own icon and words (never colour alone), and a click that does what the state needs', () => {
      const idle = statusView(ENGLISH, { state: 'idle', elapsedMs: 0 });
      assert.equal(idle.text, '$(mic) Dictée');
      assert.equal(idle.command, 'dictee.start');
      assert.equal(statusView(ENGLISH, { state: 'connecting', elapsedMs: 0 }).text, '$(loading~spin) Dictée connecting');
      const rec = statusView(ENGLISH, { state: 'recording', elapsedMs: 12_000, level: 0.5 });
      assert.equal(rec.text, '$(record) Dictée 0:12 ▅');
      assert.equal(rec.colour, 'recording');
      assert.equal(rec.command, 'dictee.stop');
      assert.match(rec.tooltip, /command:dictee\.pause/);
      assert.match(rec.tooltip, /command:dictee\.stop/);
      const paused = statusView(ENGLISH, { state: 'paused', elapsedMs: 12_000, target: 'report.md' });
      assert.equal(paused.text, '$(dictee-pause) Dictée paused 0:12');
      assert.equal(paused.command, 'dictee.resume', 'a click while paused resumes');
      assert.match(paused.tooltip, /command:dictee\.resume/);
      assert.match(paused.tooltip, /Click to resume dictating into \*\*report\\\.md\*\*/);
      assert.equal(
        statusView(ENGLISH, { state: 'recording', elapsedMs: 5000, reconnecting: true }).text,
        '$(loading~spin) Dictée 0:05 reconnecting',
      );
      assert.equal(statusView(ENGLISH, { state: 'recording', elapsedMs: 5000, retryInS: 5 }).text, '$(watch) Dictée 0:05 retry in 5 s');
      // The service's speech recogniser is unavailable (INIT_ERROR with a wait): said plainly, and that it retries.
      const down = statusView(ENGLISH, { state: 'recording', elapsedMs: 5000, retryInS: 3, recogniserUnavailable: true });
      assert.equal(down.text, '$(watch) Dictée 0:05 recogniser unavailable, retry in 3 s');
      assert.match(down.tooltip, /speech recogniser of the service is unavailable: next try in 3 s\. Your audio is kept/);
      assert.equal(down.colour, 'warning');
      const connecting = statusView(ENGLISH, { state: 'connecting', elapsedMs: 0, retryInS: 2, recogniserUnavailable: true });
      assert.equal(connecting.text, '$(watch) Dictée recogniser unavailable, retry in 2 s');
      assert.match(connecting.accessibilityLabel, /the speech recogniser is unavailable, next try in 2 seconds/);
      assert.equal(statusView(ENGLISH, { state: 'recording', elapsedMs: 5000, muted: true }).text, '$(warning) Dictée 0:05 no sound');
      const err = statusView(ENGLISH, { state: 'idle', elapsedMs: 0, error: 'the service refused the API key.' });
      assert.equal(err.text, '$(error) Dictée');
      assert.equal(err.accessibilityLabel, 'Dictée: stopped after an error: the service refused the API key. Click to dictate again.');
      assert.doesNotMatch(err.tooltip, /stopped after an error/, 'the cause, not the same words twice');
      assert.equal(err.colour, 'error');
    });

    it('a file sent to its end shows transcribing while the last words are written; stopping only when it is stopped', () => {
      const finishing = statusView(ENGLISH, {
        state: 'stopping',
        elapsedMs: 7000,
        file: 'dictation.wav',
        finishing: true,
        target: 'report.md',
      });
      assert.equal(finishing.text, '$(loading~spin) Dictée transcribing 0:07');
      assert.match(
        finishing.tooltip,
        /transcribing \*\*dictation\\\.wav\*\*: the whole file was sent, the last words are being written into \*\*report\\\.md\*\*/,
      );
      assert.doesNotMatch(`${finishing.text} ${finishing.tooltip} ${finishing.accessibilityLabel}`, /stopping/);
      // Cancelled before its end, a file run does stop; so does a microphone run.
      assert.equal(
        statusView(ENGLISH, { state: 'stopping', elapsedMs: 7000, file: 'dictation.wav' }).text,
        '$(loading~spin) Dictée stopping',
      );
      assert.equal(statusView(ENGLISH, { state: 'stopping', elapsedMs: 7000, finishing: true }).text, '$(loading~spin) Dictée stopping');
    });

    it("the tooltip gives the user's key, the language, the microphone, and says when the engine is simulated", () => {
      const v = statusView(ENGLISH, {
        state: 'idle',
        elapsedMs: 0,
        keybinding: 'Ctrl+Shift+Alt+D',
        language: 'fr',
        specialty: 'radiology',
        device: 'virtmic.monitor',
        engine: 'simulated',
      });
      assert.match(v.tooltip, /Ctrl\\\+Shift\\\+Alt\\\+D/);
      assert.match(v.tooltip, /Language: French, vocabulary: Radiology/);
      assert.match(v.tooltip, /Microphone: \*\*virtmic\\\.monitor\*\*/);
      assert.match(v.tooltip, /simulated\*\* engine: it writes a prepared script/);
      assert.match(statusView(ENGLISH, { state: 'idle', elapsedMs: 0 }).tooltip, /Microphone: the system default/);
      assert.doesNotMatch(statusView(ENGLISH, { state: 'idle', elapsedMs: 0, engine: 'pocketsphinx' }).tooltip, /simulated/);
    });

    it('the language item shows the language and vocabulary of the next run', () => {
      assert.equal(languageView(ENGLISH, 'fr', 'general', true).text, 'FR');
      const v = languageView(ENGLISH, 'en', 'radiology', false);
      assert.equal(v.text, 'EN · Radiology');
      assert.match(v.tooltip, /English, vocabulary: Radiology\. Click to change/);
    });

    it('draws the input level as one bar', () => {
      assert.equal(levelBar(undefined), '');
      assert.equal(levelBar(0), '▁');
      assert.equal(levelBar(1), '█');
      assert.equal(levelBar(7), '█');
    });

    it('escapes document names in the Markdown tooltip', () => {
      const v = statusView(ENGLISH, { state: 'recording', elapsedMs: 0, target: 'a_[b](command:x).md' });
      assert.ok(!v.tooltip.includes('[b](command:x)'));
    });
  });

  describe('keys', () => {
    it("the user's keybindings.json wins over the default; a removed default is no key", () => {
      assert.equal(effectiveKey('dictee.toggle', 'ctrl+alt+shift+d', undefined), 'ctrl+alt+shift+d');
      const user = `// comments are allowed
        [ { "key": "f9", "command": "dictee.toggle" }, ]`;
      assert.equal(effectiveKey('dictee.toggle', 'ctrl+alt+shift+d', user), 'f9');
      assert.equal(
        effectiveKey('dictee.toggle', 'ctrl+alt+shift+d', '[{ "key": "ctrl+alt+shift+d", "command": "-dictee.toggle" }]'),
        undefined,
      );
      assert.equal(effectiveKey('dictee.toggle', 'ctrl+alt+shift+d', 'not json at all'), 'ctrl+alt+shift+d');
    });

    it('writes keys as VS Code does', () => {
      assert.equal(displayKey('ctrl+alt+shift+d', 'linux'), 'Ctrl+Shift+Alt+D');
      assert.equal(displayKey('cmd+alt+shift+d', 'darwin'), '⇧⌥⌘D');
      assert.equal(displayKey('f9', 'win32'), 'F9');
      assert.equal(displayKey('ctrl+k ctrl+d', 'linux'), 'Ctrl+K Ctrl+D');
    });
  });

  describe('language picker', () => {
    it('marks a language the service says it does not serve; says nothing when the service does not say', () => {
      assert.equal(serves(['en'], 'fr'), false);
      assert.equal(serves(['en'], 'en'), true);
      assert.equal(serves(['any'], 'de'), true);
      assert.equal(serves(undefined, 'es'), true);
      assert.equal(languageRowNote(ENGLISH, 'fr', 'fr', ['en']), 'fr — the service does not take dictation in this language');
      assert.equal(languageRowNote(ENGLISH, 'en', 'en', ['en']), 'en');
      assert.equal(languageRowNote(ENGLISH, 'fr', 'French', undefined), 'French');
    });
  });

  describe('error messages', () => {
    const err = (init: Omit<DictationErrorInit, 'fatal'>): DictationError => new DictationError({ ...init, fatal: true });
    const sent = { language: 'en', sampleRate: 16000 } as const;

    it("tells every error in a plain sentence with an action, never a code, an offset or the service's words", () => {
      for (const code of [...ERROR_CODES, 'NETWORK_ERROR', 'TIMEOUT'] as const) {
        const p = presentError(ENGLISH, err({ code, message: 'resume_audio_offset 123456 ECONNRESET' }), {
          ...sent,
          serverUrl: 'http://h:1',
        });
        assert.ok(p.text.startsWith('Dictée: '), `${code}: ${p.text}`);
        assert.ok(!p.text.includes(code), `${code} is not shown`);
        assert.doesNotMatch(p.text, /123456|ECONNRESET|resume_audio_offset/, code);
        assert.ok(p.actions.length > 0, code);
      }
    });

    it('AUTH_ERROR offers Set API Key; CONFIG_ERROR names the setting; unreachable names the address; a lost connection says so', () => {
      assert.equal(
        presentError(ENGLISH, err({ code: 'AUTH_ERROR', message: 'revoked' }), { ...sent, serverUrl: 'x' }).actions[0],
        'setApiKey',
      );
      const c = presentError(
        ENGLISH,
        err({ code: 'CONFIG_ERROR', message: 'silence_threshold must be between 0.2 and 10', field: 'silence_threshold' }),
        { ...sent, serverUrl: 'x' },
      );
      assert.match(c.text, /dictee\.advanced\.silenceThreshold/);
      assert.equal(c.setting, 'dictee.advanced.silenceThreshold');
      assert.equal(c.actions[0], 'openSettings');
      // A service older than details refuses the field: the threshold at 0 dictates without it.
      const d = presentError(ENGLISH, err({ code: 'CONFIG_ERROR', message: 'unknown field details', field: 'details' }), {
        ...sent,
        serverUrl: 'x',
      });
      assert.equal(d.setting, 'dictee.proofreading.threshold');
      assert.match(d.text, /does not give the confidence of the words.*Set dictee\.proofreading\.threshold to 0/);
      const n = presentError(ENGLISH, err({ code: 'NETWORK_ERROR', message: 'ECONNREFUSED' }), { ...sent, serverUrl: 'http://h:1' });
      assert.equal(n.setting, 'dictee.serverUrl');
      assert.match(n.text, /the service at http:\/\/h:1 cannot be reached/);
      assert.deepEqual(n.actions, ['retry', 'openSettings', 'showLog']);
      const lost = presentError(ENGLISH, err({ code: 'NETWORK_ERROR', message: 'gave up' }), {
        ...sent,
        serverUrl: 'http://h:1',
        wasConnected: true,
      });
      assert.match(lost.text, /network connection to the service was lost/);
      assert.doesNotMatch(lost.text, /serverUrl|server address/);
      assert.match(
        presentError(ENGLISH, err({ code: 'INTERNAL_ERROR', message: 'gave up', sessionId: 's-1' }), { ...sent, serverUrl: 'x' }).text,
        /What was written stays in the document/,
      );
    });

    it('an INIT_ERROR with a wait that outlasted the retries: the recogniser stayed unavailable, no setting to change', () => {
      const p = presentError(
        ENGLISH,
        err({ code: 'INIT_ERROR', message: 'gave up after 8 reconnection attempts; last failure: …', retryAfterMs: 2000 }),
        { ...sent, serverUrl: 'x' },
      );
      assert.match(p.text, /speech recogniser stayed unavailable, so dictation stopped\. What was dictated is in the document/);
      assert.deepEqual([p.actions, p.setting], [['retry', 'showLog'], undefined]);
    });

    it('a CONCURRENCY_LIMIT_EXCEEDED with a wait (decoders behind real time) is the busy recogniser, not a limit of sessions', () => {
      const busy = presentError(ENGLISH, err({ code: 'CONCURRENCY_LIMIT_EXCEEDED', message: 'gave up…', retryAfterMs: 3000 }), {
        ...sent,
        serverUrl: 'x',
      });
      assert.match(busy.text, /speech recogniser stayed unavailable/);
      const limit = presentError(ENGLISH, err({ code: 'CONCURRENCY_LIMIT_EXCEEDED', message: 'full' }), { ...sent, serverUrl: 'x' });
      assert.match(limit.text, /too many dictations are open/);
    });

    it("INIT_ERROR names the language and the sample rate the run sent (never the service's words), and the setting to change", () => {
      const words = 'this engine (pocketsphinx) serves only: en';
      const fr = presentError(ENGLISH, err({ code: 'INIT_ERROR', message: words }), { serverUrl: 'x', language: 'fr', sampleRate: 16000 });
      assert.equal(fr.text, 'Dictée: the service cannot take dictation in French at 16000 Hz. Choose another language.');
      assert.equal(fr.setting, 'dictee.language');
      assert.deepEqual(fr.actions, ['openSettings', 'showLog']);
      const rate = presentError(ENGLISH, err({ code: 'INIT_ERROR', message: words }), {
        serverUrl: 'x',
        language: 'de',
        sampleRate: 44100,
      });
      assert.equal(
        rate.text,
        'Dictée: the service cannot take dictation in German at 44100 Hz. Choose another language, or reset the sample rate to 16000 Hz.',
      );
      assert.doesNotMatch(fr.text + rate.text, /pocketsphinx|serves only/);
      // In the user's language: the language's own translated name.
      const french = {
        t: (m: string, ...a: (string | number | boolean)[]) =>
          m === 'French' ? 'français' : m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])),
      };
      assert.match(
        presentError(french, err({ code: 'INIT_ERROR', message: words }), { serverUrl: 'x', language: 'fr', sampleRate: 16000 }).text,
        /in français at 16000 Hz/,
      );
    });

    it('INIT_ERROR names its actual cause: the language refused with those the service serves, or the sample rate', () => {
      const ctx = { serverUrl: 'x', language: 'fr' as const, sampleRate: 16000 };
      const lang = presentError(
        ENGLISH,
        err({ code: 'INIT_ERROR', message: 'language fr is not available in the pocketsphinx engine; it serves: en' }),
        ctx,
      );
      assert.equal(
        lang.text,
        'Dictée: the service does not take dictation in French; it serves English. Choose one of those, or install a speech model for French on the service (npm run models -- list).',
      );
      assert.equal(lang.setting, 'dictee.language');
      assert.doesNotMatch(lang.text, /Hz/, 'no unrelated hint about the sample rate');
      const none = presentError(ENGLISH, err({ code: 'INIT_ERROR', message: 'language fr is not available in the simulated engine' }), ctx);
      assert.equal(
        none.text,
        'Dictée: the service does not take dictation in French. Choose another language, or install a speech model for French on the service (npm run models -- list).',
      );
      const rate = presentError(
        ENGLISH,
        err({ code: 'INIT_ERROR', message: 'sample_rate 44100 Hz is not supported by the pocketsphinx engine' }),
        { ...ctx, sampleRate: 44100 },
      );
      assert.equal(rate.text, 'Dictée: the service does not take audio at 44100 Hz. Reset the sample rate to 16000 Hz.');
      assert.doesNotMatch(rate.text, /language/);
    });

    it("puts the client library's warnings (logged as they are) in plain sentences without byte counts", () => {
      const cases: [string, RegExp][] = [
        ['disconnected for more than 60 s: the oldest buffered audio is being dropped', /lost for more than a minute/],
        [
          'the service needs audio from byte 96000 but only audio from byte 128000 is retained: 32000 bytes cannot be re-sent',
          /could not be sent again/,
        ],
        ['the service does not support resume (SESSION_NOT_FOUND); the run continues on a new session', /goes on in a new one/],
        ['something new', /details in the log/],
      ];
      for (const [text, re] of cases) {
        const s = warningSentence(ENGLISH, text);
        assert.match(s, re);
        assert.doesNotMatch(s, /\d{3,}|byte|SESSION_NOT_FOUND/, s);
      }
    });
  });

  describe('provisional text', () => {
    it('shows newlines as pilcrows', () => {
      assert.equal(displayProvisional('one\ntwo\r\nthree\tfour'), 'one ¶ two ¶ three four');
    });

    it('shows the last words of a long text after an ellipsis, never more than the limit', () => {
      const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
      const shown = displayProvisional(long);
      assert.ok(shown.startsWith('…'), shown);
      assert.ok(shown.length <= PROVISIONAL_MAX_CHARS, `${shown.length}`);
      assert.ok(shown.endsWith('word59'));
      assert.ok(/^…word\d+ /.test(shown), `cut at a word: ${shown}`);
      assert.equal(displayProvisional('x'.repeat(200)).length, PROVISIONAL_MAX_CHARS);
    });

    it('at the end of a long line shows only what fits before the right edge: the newest words', () => {
      const off = { wordWrap: 'off', wordWrapColumn: 80 };
      const text = 'the heart size is within normal limits and the mediastinum is not widened';
      // Near the start of a line: the usual 60 characters.
      assert.equal(provisionalRoom(10, off), PROVISIONAL_MAX_CHARS);
      // At column 100 of a line (beyond the width assumed when the window's width is unknown): the last words.
      const room = provisionalRoom(100, off);
      assert.equal(room, PROVISIONAL_MIN_CHARS);
      const shown = displayProvisional(text, room);
      assert.ok(shown.length <= PROVISIONAL_MIN_CHARS && shown.startsWith('…') && shown.endsWith('not widened'), shown);
      assert.equal(provisionalRoom(ASSUMED_LINE_WIDTH - 30, { wordWrap: 'on', wordWrapColumn: 80 }), 30);
      // Wrapped at a column: the place on the screen row counts, not the place in the line.
      assert.equal(provisionalRoom(100, { wordWrap: 'wordWrapColumn', wordWrapColumn: 60 }), 20);
      assert.equal(provisionalRoom(125, { wordWrap: 'bounded', wordWrapColumn: 60 }), 55);
      assert.equal(provisionalRoom(130, { wordWrap: 'wordWrapColumn', wordWrapColumn: 120 }), PROVISIONAL_MAX_CHARS);
      assert.equal(provisionalRoom(118, { wordWrap: 'wordWrapColumn', wordWrapColumn: 120 }), PROVISIONAL_MIN_CHARS);
      assert.equal(
        provisionalRoom(5, { wordWrap: 'wordWrapColumn', wordWrapColumn: 0 }),
        ASSUMED_LINE_WIDTH - 5 > PROVISIONAL_MAX_CHARS ? PROVISIONAL_MAX_CHARS : ASSUMED_LINE_WIDTH - 5,
      );
    });
  });
});

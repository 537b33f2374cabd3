import assert from 'node:assert/strict';

describe('npm start: the dictation language it writes into the settings', () => {
  it('is the language the engine serves, said with why', async () => {
    const { startLanguage } = await import('../../scripts/start-language.mjs');
    assert.deepEqual(startLanguage(['en'], 'pocketsphinx'), { language: 'en', why: 'the only language the pocketsphinx engine serves' });
    assert.deepEqual(startLanguage(['de'], 'sherpa-onnx'), { language: 'de', why: 'the only language the sherpa-onnx engine serves' });
    assert.equal(startLanguage(['any'], 'simulated').language, 'en', 'the sample script is English');
    assert.match(startLanguage(['any'], 'simulated').why, /script .* is English/);
    assert.equal(startLanguage(['fr', 'en', 'de'], 'sherpa-onnx').language, 'en', 'the sample report is English');
    assert.equal(startLanguage(['fr', 'de'], 'sherpa-onnx').language, 'fr');
    assert.equal(startLanguage(undefined, 'pocketsphinx').language, 'en');
  });
});

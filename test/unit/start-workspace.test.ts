import assert from 'node:assert/strict';
import path from 'node:path';

describe('npm start: the sample workspace', () => {
  it('is outside the clone, one per clone, the same on every run of a clone', async () => {
    const { startWorkspace } = await import('../../scripts/start-workspace.mjs');
    const a = startWorkspace('/home/u/src/dictee', '/tmp', 1000);
    assert.equal(startWorkspace('/home/u/src/dictee/', '/tmp', 1000), a, 'the same clone, the same workspace');
    assert.notEqual(startWorkspace('/home/u/other/dictee', '/tmp', 1000), a, 'another clone of the same name has its own');
    assert.notEqual(startWorkspace('/home/u/src/dictee', '/tmp', 1001), a, 'another user has their own');
    assert.ok(path.relative('/home/u/src/dictee', a).startsWith('..'), 'outside the clone');
    assert.match(a, /^\/tmp\/dictee-start-1000\/dictee-[0-9a-f]{8}\/workspace$/);
  });

  it('the sample report is in the dictation language, the cursor right after its findings label', async () => {
    const { sampleReport } = await import('../../scripts/start-workspace.mjs');
    for (const [language, label] of [
      ['en', 'Findings:'],
      ['fr', 'Résultats :'],
      ['es', 'Hallazgos:'],
      ['de', 'Befund:'],
    ] as const) {
      const r = sampleReport(language);
      assert.equal(r.label, label);
      const line = r.text.split('\n')[r.line - 1]!;
      assert.equal(line.slice(0, r.column - 1), `${label} `, `${language}: the cursor after "${label} "`);
    }
    assert.match(sampleReport('fr').text, /^# Compte rendu/);
    assert.equal(sampleReport('it').text, sampleReport('en').text, 'English for a language without a sample');
  });
});

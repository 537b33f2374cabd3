/**
 * Escape stops dictation (issue 29, defect 6): while a template field is selected (Next Field, Accept
 * Defaults, a template), in snippet mode, or while a notification shows, as well as in the plain editor;
 * and it keeps its usual job when nothing is being dictated, or when a widget it closes is open. The
 * manifest's `when` clause, evaluated as VS Code's keybinding service does.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { evaluateWhen } from '../helpers/whenClause';

const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  contributes: { keybindings: { command: string; key: string; when?: string }[] };
};
const escape = manifest.contributes.keybindings.find((k) => k.key === 'escape' && k.command === 'dictee.stop');
const stops = (ctx: Record<string, string | boolean>): boolean => evaluateWhen(escape!.when!, { editorTextFocus: true, ...ctx });

describe('Escape stops dictation in every state of the editor it is dictated into', () => {
  it('is bound, with a when clause', () => {
    assert.ok(escape?.when);
    assert.equal(evaluateWhen('a && (b == x || !c)', { a: true, b: 'x', c: true }), true);
    assert.equal(evaluateWhen('a && (b == x || !c)', { a: true, b: 'y', c: true }), false);
  });

  for (const state of ['recording', 'paused', 'connecting']) {
    it(`${state}: in the plain editor, with a template field selected, in snippet mode, under a notification`, () => {
      assert.equal(stops({ 'dictee.state': state }), true);
      assert.equal(stops({ 'dictee.state': state, editorHasSelection: true }), true, 'a template field selected');
      assert.equal(stops({ 'dictee.state': state, editorHasSelection: true, inSnippetMode: true }), true, 'snippet mode');
      assert.equal(stops({ 'dictee.state': state, notificationToastsVisible: true }), true, 'a notification shows');
    });
  }

  it('keeps its usual job when nothing is dictated, or when it closes a widget the user opened', () => {
    for (const state of ['idle', 'stopping']) assert.equal(stops({ 'dictee.state': state, editorHasSelection: true }), false);
    assert.equal(stops({ editorHasSelection: true }), false);
    for (const w of ['suggestWidgetVisible', 'findWidgetVisible', 'renameInputVisible', 'parameterHintsVisible', 'editorHoverVisible'])
      assert.equal(stops({ 'dictee.state': 'recording', [w]: true }), false, w);
    assert.equal(stops({ 'dictee.state': 'recording', editorTextFocus: false }), false, 'the editor does not have the focus');
  });
});

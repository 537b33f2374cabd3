/**
 * html.ts, the one way the dashboard writes markup: every value escaped (text and quoted attributes alike:
 * `&`, `<`, `>`, `"`, `'`), `Html` values (nested templates, `raw()`) kept as they are, arrays joined, and
 * null, undefined and false written as nothing (but 0 and true written).
 */
import assert from 'node:assert/strict';
import { Html, html as h, raw } from '../../src/server/dashboard/html';

// Named `h` here so that the formatter leaves the templates' markup exactly as written.

describe('dashboard html`…`', () => {
  it('escapes a name with a <script> in element content', () => {
    const name = '<script>alert("x")</script>';
    assert.equal(h`<td>${name}</td>`.value, '<td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</td>');
  });

  it('keeps an attribute value with both quotes inside its quotes', () => {
    const v = `Dr "Bob" O'Neil" onmouseover="alert(1)`;
    const out = h`<input value="${v}" />`.value;
    assert.equal(out, '<input value="Dr &quot;Bob&quot; O&#39;Neil&quot; onmouseover=&quot;alert(1)" />');
    // Exactly the two quotes of the template: the value cannot end the attribute.
    assert.equal(out.split('"').length - 1, 2);
    assert.equal(h`<a title='${"it's"}'>`.value, "<a title='it&#39;s'>");
  });

  it('escapes & first, so an entity typed stays text (no double decoding)', () => {
    assert.equal(h`${'&lt;b&gt; & &amp;'}`.value, '&amp;lt;b&amp;gt; &amp; &amp;amp;');
  });

  it('writes nested Html and raw() as they are, and escapes strings that only look like markup', () => {
    const inner = h`<b>${'<i>'}</b>`;
    assert.equal(h`<p>${inner}</p>`.value, '<p><b>&lt;i&gt;</b></p>');
    assert.equal(h`<p>${raw('<br />')}</p>`.value, '<p><br /></p>');
    assert.equal(h`<p>${'<br />'}</p>`.value, '<p>&lt;br /&gt;</p>');
    assert.ok(inner instanceof Html);
    assert.equal(String(inner), inner.value);
  });

  it('joins arrays (nested too), escaping each string in them', () => {
    const rows = ['<a>', ['b&', h`<i>c</i>`]];
    assert.equal(h`<ul>${rows}</ul>`.value, '<ul>&lt;a&gt;b&amp;<i>c</i></ul>');
    assert.equal(h`<ul>${[]}</ul>`.value, '<ul></ul>');
  });

  it('writes null, undefined and false as nothing, but 0, true and empty strings as themselves', () => {
    assert.equal(h`[${null}|${undefined}|${false}]`.value, '[||]');
    assert.equal(h`[${0}|${true}|${''}]`.value, '[0|true|]');
    assert.equal(h`${'x'}`.value, 'x');
    assert.equal(h`plain`.value, 'plain');
  });

  it('leaves characters other than the five alone (non-ASCII, backquote, equals)', () => {
    assert.equal(h`${'Élodie = `ok` ✓'}`.value, 'Élodie = `ok` ✓');
  });
});

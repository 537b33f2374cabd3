#!/usr/bin/env node
// `npm run icons`: writes media/dictee-icons.ttf (TrueType), the icon font of Dictée's own icons (contributes.icons):
// pause, resume and stop drawn for dictation, so that the editor's buttons are not the debugger's.
// Each glyph is drawn on VS Code's 16 × 16 icon grid (1 unit = 62.5 font units of a 1000-unit em).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import opentype from 'opentype.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const U = 1000 / 16;
/** A path in grid units (y down, as in SVG), turned into font units (y up, baseline at the bottom of the grid). */
function shape(draw) {
  const p = new opentype.Path();
  const X = (x) => Math.round(x * U);
  const Y = (y) => Math.round((14 - y) * U); // 14 of 16 above the baseline, as codicons sit
  draw({
    move: (x, y) => p.moveTo(X(x), Y(y)),
    line: (x, y) => p.lineTo(X(x), Y(y)),
    close: () => p.close(),
  });
  return p;
}
const rect = (d, x, y, w, h) => {
  // Clockwise in y-down coordinates is counter-clockwise in font coordinates: TrueType fills either here.
  d.move(x, y);
  d.line(x, y + h);
  d.line(x + w, y + h);
  d.line(x + w, y);
  d.close();
};

/** Glyphs: name, code point, drawing. The code points are those of contributes.icons in package.json. */
export const GLYPHS = [
  [
    'dictee-pause',
    0xe001,
    (d) => {
      rect(d, 4, 3, 2.5, 10);
      rect(d, 9.5, 3, 2.5, 10);
    },
  ],
  [
    'dictee-resume',
    0xe002,
    (d) => {
      d.move(4, 2.5);
      d.line(4, 13.5);
      d.line(13, 8);
      d.close();
    },
  ],
  ['dictee-stop', 0xe003, (d) => rect(d, 3.5, 3.5, 9, 9)],
];

const notdef = new opentype.Glyph({ name: '.notdef', unicode: 0, advanceWidth: 1000, path: new opentype.Path() });
const glyphs = [
  notdef,
  ...GLYPHS.map(([name, code, draw]) => new opentype.Glyph({ name, unicode: code, advanceWidth: 1000, path: shape(draw) })),
];
const font = new opentype.Font({
  familyName: 'dictee-icons',
  styleName: 'Regular',
  unitsPerEm: 1000,
  ascender: 875,
  descender: -125,
  glyphs,
});
const out = path.join(root, 'media', 'dictee-icons.ttf');
writeFileSync(out, Buffer.from(font.toArrayBuffer()));
console.log(`wrote ${path.relative(root, out)} (${GLYPHS.length} icons)`);

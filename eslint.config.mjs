// Lint rules that catch real defects in async code (floating promises above all), and the layers of
// docs/architecture.md: each layer of src/ imports only the layers below it, the editor's writers
// (src/extension/editor/) reach VS Code only through their port's adapters, and the files at the root of
// src/extension/ (what every part uses) import none of its folders, but for the composition root.
import tseslint from 'typescript-eslint';

/** The layers of src/ and the layers each one may import (besides itself). */
const LAYERS = {
  shared: [],
  protocol: ['shared'],
  dictation: ['shared'],
  audio: ['shared', 'protocol'],
  client: ['shared', 'protocol', 'audio'],
  server: ['shared', 'protocol'],
  models: ['shared', 'protocol', 'server'],
  extension: ['shared', 'protocol', 'dictation', 'audio', 'client'],
};

/**
 * The files of src/extension/editor/ that may import vscode: the adapters of the editor's port
 * (documentPort.ts) and the parts that are VS Code through and through. The writers beside them run in
 * plain Node (test/unit/editor-*.test.ts).
 */
const EDITOR_ADAPTERS = ['vscodeDocument.ts', 'provisionalDecoration.ts', 'lastSentence.ts'];

/**
 * The files at the root of src/extension/ that may import its folders: the composition root, which builds
 * every service (container.ts), registers the commands (commands.ts) and is activated (extension.ts).
 */
const COMPOSITION_ROOT = ['extension.ts', 'container.ts', 'commands.ts'];

/** The folders of src/extension/: the root's other files sit below them all. */
const EXTENSION_FOLDERS = ['run', 'editor', 'templates', 'proofreading', 'ui'];

/** `no-restricted-imports` for the files of one layer: the other layers it must not reach, and vscode. */
function layerRule(layer, { vscode = layer === 'extension', files = [`src/${layer}/**/*.ts`], ignores = [], extraPatterns = [] } = {}) {
  const forbidden = Object.keys(LAYERS).filter((l) => l !== layer && !LAYERS[layer].includes(l));
  const patterns = forbidden.map((l) => ({
    // A relative import that leaves the layer's folder for the other layer's (`../client/session`, `../../server/x`).
    regex: `^(\\.\\./)+${l}(/|$)`,
    message: `src/${layer}/ may import only ${LAYERS[layer].length ? LAYERS[layer].map((x) => `src/${x}/`).join(', ') : 'Node built-ins'} (docs/architecture.md).`,
  }));
  if (layer === 'shared') {
    patterns.push({ regex: '^(?!node:|\\./)', message: 'src/shared/ imports nothing but Node built-ins (node:…) and itself.' });
  }
  patterns.push(...extraPatterns);
  const message =
    layer === 'extension'
      ? `In src/extension/editor/ only ${EDITOR_ADAPTERS.join(', ')} may import vscode; the writers use the port of documentPort.ts.`
      : 'Only src/extension/ may import vscode.';
  const paths = vscode ? [] : [{ name: 'vscode', message }];
  return {
    files,
    ignores,
    rules: { 'no-restricted-imports': ['error', { paths, patterns }] },
  };
}

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.cache/**', 'test-output/**', '**/*.mjs'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      'no-restricted-imports': ['error', { paths: [] }],
    },
  },
  ...Object.keys(LAYERS).map((layer) => layerRule(layer)),
  layerRule('extension', {
    vscode: false,
    files: ['src/extension/editor/**/*.ts'],
    ignores: EDITOR_ADAPTERS.map((f) => `src/extension/editor/${f}`),
  }),
  layerRule('extension', {
    files: ['src/extension/*.ts'],
    ignores: COMPOSITION_ROOT.map((f) => `src/extension/${f}`),
    extraPatterns: [
      {
        regex: `^\\./(${EXTENSION_FOLDERS.join('|')})(/|$)`,
        message: `The files at the root of src/extension/ sit below its folders (${EXTENSION_FOLDERS.join(', ')}): only ${COMPOSITION_ROOT.join(', ')} import them (docs/architecture.md).`,
      },
    ],
  }),
);

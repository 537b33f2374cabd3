// Lint rules that catch real defects in async code (floating promises above all).
import tseslint from 'typescript-eslint';

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
  {
    // Only the vscode layer may import vscode.
    files: ['src/protocol/**/*.ts', 'src/server/**/*.ts', 'src/client/**/*.ts', 'src/audio/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'Only src/extension/ may import vscode.' }] }] },
  },
  {
    // The dictation grammar is pure: no vscode, no other layer of src/.
    files: ['src/dictation/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'src/dictation/ is pure: no vscode.' }],
          patterns: [{ group: ['../*', '!../types', '!../text', '!../lang', '!../lang/*'], message: 'src/dictation/ imports nothing from the other layers of src/.' }],
        },
      ],
    },
  },
);

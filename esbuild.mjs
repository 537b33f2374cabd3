// Bundles the extension, the service, the example client and the dictation formatter. Type-checking is `npm run typecheck`.
import { copyFileSync, mkdirSync } from 'node:fs';
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/**
 * Prints errors in the form VS Code's esbuild problem matcher reads; the `[watch] build started/finished`
 * lines that matcher waits for only with --watch (a one-shot build of the five bundles says nothing when it
 * succeeds).
 */
const problemMatcher = {
  name: 'problem-matcher',
  setup(build) {
    if (watch) build.onStart(() => console.log('[watch] build started'));
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      if (watch) console.log('[watch] build finished');
    });
  },
};

const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'silent',
  // ws loads these optional native helpers with a guarded require.
  external: ['bufferutil', 'utf-8-validate'],
  plugins: [problemMatcher],
};

// The service's native modules stay in node_modules: dependencies, so that `npm ci --omit=dev` installs them on a
// server (docs/server.md); .vscodeignore keeps them out of the .vsix. Native modules, loaded at run time. pg loads its optional libpq binding (pg-native) only
// when asked for `pg.native`, which the service never is; pg and ioredis themselves are bundled.
const serverNative = ['better-sqlite3', 'koffi', 'sherpa-onnx-node', 'pg-native', 'argon2'];

const targets = [
  {
    ...common,
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    // jsonc-parser's "main" is a UMD build whose inner requires esbuild cannot follow: take its ES module build.
    mainFields: ['module', 'main'],
    // node-record-lpcm16 loads its recorders with a dynamic require: it ships in the .vsix as a module.
    external: [...common.external, 'vscode', 'node-record-lpcm16'],
  },
  {
    ...common,
    entryPoints: ['src/server/main.ts'],
    outfile: 'dist/server.js',
    // Native modules: loaded from node_modules at run time.
    external: [...common.external, ...serverNative],
  },
  {
    ...common,
    // The decoder worker threads' entry, started by dist/server.js from beside it.
    entryPoints: ['src/server/engine/worker.ts'],
    outfile: 'dist/engine-worker.js',
    external: [...common.external, ...serverNative],
  },
  {
    ...common,
    entryPoints: ['src/client/cli.ts'],
    outfile: 'dist/client-cli.js',
  },
  {
    ...common,
    entryPoints: ['src/dictation/cli.ts'],
    outfile: 'dist/format.js',
  },
  {
    // The dashboard's script for the browser (docs/dashboard.md), served by the service with a hash in its URL.
    ...common,
    entryPoints: ['src/server/dashboard/browser/dashboard.ts'],
    outfile: 'dist/dashboard/dashboard.js',
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    sourcemap: false,
    external: [],
  },
];

if (watch) {
  for (const t of targets) {
    const ctx = await esbuild.context(t);
    await ctx.watch();
  }
} else {
  await Promise.all(targets.map((t) => esbuild.build(t)));
}

// The capture page's library for dictation microphones (dictation_support, Apache-2.0), served as it is
// published to the page (never bundled into the extension): copied from its npm package with its licence.
mkdirSync('dist', { recursive: true });
copyFileSync('node_modules/dictation_support/dist/index.js', 'dist/dictation_support.js');
copyFileSync('node_modules/dictation_support/LICENSE', 'dist/dictation_support.LICENSE');
// The dashboard's style sheet, served beside its script.
mkdirSync('dist/dashboard', { recursive: true });
copyFileSync('src/server/dashboard/browser/dashboard.css', 'dist/dashboard/dashboard.css');

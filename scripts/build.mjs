// Bundles each entry of src/bin/ with rolldown into dist/<name>/: <name>.js (CommonJS, not
// minified, so reviewers can read bundle diffs), <name>.js.map (pointing at src/), the
// chunks loaded on demand, licenses.txt, and index.js, a small loader that names src/ lines
// in a crash's stack. CI rebuilds and diffs dist/.
//
// Why CommonJS (docs/performance.md, start-up): an ES module that imports a Node builtin makes
// Node read every export of it, and `node:http`'s WebSocket getters then load Node's own copy
// of undici, about 20 ms of each step's start; `require()` reads none of them.
import { chmodSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { build } from 'rolldown';
import { licenseText } from './licenses.mjs';

// keeper: the action's keeper alone, so that it holds only what renewing needs in memory.
const entries = ['main', 'post', 'cli', 'notify', 'keeper'];
const only = process.argv.slice(2);
for (const name of only.length ? only : entries) await bundle(name);

async function bundle(name) {
  const out = `dist/${name}`;
  rmSync(out, { recursive: true, force: true });
  const { output } = await build({
    input: { [name]: `src/bin/${name}.ts` },
    platform: 'node',
    logLevel: 'warn',
    // Our sources import each other as `.js`, as Node's ES modules need.
    resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
    // node:http2 is left to the plugin below, which decides it by who asks.
    external: [...builtinModules.filter((m) => m !== 'http2'), /^node:(?!http2$)/, 'pg-native'],
    plugins: [noHttp2ForUndici(), moduleUrl()],
    treeshake: {
      // These packages do nothing when loaded but define exports, and say nothing of it: marked
      // so, a module none of whose exports we use is left out. @actions/core's OIDC module
      // (@actions/http-client, and with it all of undici) and its platform module
      // (@actions/exec) go; the steps ask for their token through our own client.
      moduleSideEffects: [
        { test: /[\\/]node_modules[\\/](@actions[\\/][^\\/]+|tunnel)[\\/]/, sideEffects: false },
      ],
    },
    write: true,
    output: {
      dir: out,
      format: 'cjs',
      entryFileNames: '[name].js',
      chunkFileNames: '[name]-[hash].js',
      sourcemap: true,
      // The map names the files in this repository; their text stays out (a smaller map for
      // the loader to parse when a crash is printed).
      sourcemapExcludeSources: true,
      comments: { legal: false },
    },
  });
  for (const file of readdirSync(out).filter((f) => f.endsWith('.js'))) {
    writeFileSync(join(out, file), ascii(readFileSync(join(out, file), 'utf8')));
  }
  const modules = output.flatMap((chunk) => (chunk.type === 'chunk' ? chunk.moduleIds : []));
  writeFileSync(join(out, 'licenses.txt'), licenseText(modules));
  // The root package.json says "module"; the bundles are CommonJS.
  writeFileSync(join(out, 'package.json'), '{ "type": "commonjs" }\n');
  writeFileSync(join(out, 'index.js'), ascii(loader(name, `${name}.js`)));
  chmodSync(join(out, 'index.js'), name === 'cli' ? 0o755 : 0o644);
}

/**
 * undici (octokit's, through @actions/http-client: the steps' commit statuses) requires
 * `node:http2` when it loads, and with it node:tls and node:crypto, though nothing of ours
 * asks it for HTTP/2 (no `allowH2`). In the bundle undici gets what it falls back to itself
 * where node:http2 cannot load.
 */
function noHttp2ForUndici() {
  const STUB = '\0lease-gate:no-http2';
  return {
    name: 'lease-gate:no-http2',
    resolveId(source, importer) {
      if (source !== 'node:http2' && source !== 'http2') return null;
      const undici = /[\\/]node_modules[\\/]undici[\\/]/.test(importer ?? '');
      return undici ? STUB : { id: source, external: true };
    },
    load(id) {
      return id === STUB ? 'module.exports = { constants: {} };' : null;
    },
  };
}

/**
 * `import.meta.url` in our sources (how a step finds dist/cli, dist/keeper, dist/notify) as
 * the URL of the CommonJS file it is bundled into: chunks sit beside their entry.
 */
function moduleUrl() {
  return {
    name: 'lease-gate:module-url',
    transform(code, id) {
      if (!/[\\/]src[\\/].*\.ts$/.test(id) || !code.includes('import.meta.url')) return null;
      return {
        code: code.replaceAll(
          'import.meta.url',
          'require("node:url").pathToFileURL(__filename).href',
        ),
        map: null,
      };
    },
  };
}

// Every character past ASCII (a dash in a message, a quote in undici's comments) written as
// \uXXXX, which means the same in a string, a regular expression, an identifier or a comment
// (no bundled code reads a template's raw text). Node then reads the bundle without decoding
// UTF-8, and V8 keeps and scans it as one-byte text rather than two-byte: about 2 ms of each
// step's start (docs/performance.md), and for the keeper, which lives as long as the job, its
// source held at half the size. Columns after such a character shift in the map.
function ascii(code) {
  // `\—` (an escaped character) would become `\\u2014`: stop rather than change a meaning.
  if (/\\[\u0080-\uffff]/.test(code))
    throw new Error('build: a backslash before a non-ASCII character');
  return code.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

// The loader (scripts/dist-loader.cjs) requires the bundle and maps a crash's stack to src/
// lines when it is printed, rather than turning Node's source maps on for every start.
function loader(name, bundle) {
  const code = readFileSync('scripts/dist-loader.cjs', 'utf8').replace(
    "require('./BUNDLE.js')",
    `require('./${bundle}')`,
  );
  return `${name === 'cli' ? '#!/usr/bin/env node\n' : ''}${code}`;
}

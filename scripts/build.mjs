// Bundles each entry with ncc into dist/<name>/: <name>.js (not minified, so reviewers can
// read bundle diffs), <name>.js.map (pointing at src/), and index.js, a small loader that
// names src/ lines in a crash's stack. CI rebuilds and diffs dist/.
import { execFile } from 'node:child_process';
import { chmodSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
// keeper: the action's keeper alone, so that it holds only what renewing needs in memory.
const entries = ['main', 'post', 'cli', 'notify', 'keeper'];
const only = process.argv.slice(2);
// Each entry is its own ncc process writing its own folder: as many at once as there are
// cores. ncc is CPU-bound, mostly TypeScript: its loader checks every file the nearest
// tsconfig.json includes. src/bin/tsconfig.json (the root's options, only the entries) keeps
// that to the files bundled, not the tests and scripts too: the same output, 33 s instead of
// 45 s for the four entries on two cores. The typecheck step still checks everything.
const queue = [...(only.length ? only : entries)];
await Promise.all(
  Array.from({ length: Math.min(queue.length, availableParallelism()) }, async () => {
    for (let name = queue.shift(); name; name = queue.shift()) await build(name);
  }),
);

async function build(name) {
  const out = `dist/${name}`;
  rmSync(out, { recursive: true, force: true });
  // Skip ncc's cache (node_modules/.cache), so a local build is CI's fresh build.
  const { stdout, stderr } = await run(
    'npx',
    [
      'ncc',
      'build',
      `src/bin/${name}.ts`,
      '-o',
      out,
      '--source-map',
      '--no-source-map-register',
      '--no-cache',
      '--license',
      'licenses.txt',
      '--quiet',
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  process.stdout.write(stdout);
  process.stderr.write(stderr);
  const bundle = `${name}.js`;
  const code = readFileSync(join(out, 'index.js'), 'utf8')
    .replace(/^#!.*\n/, '')
    .replace(/\/\/# sourceMappingURL=index\.js\.map\s*$/, `//# sourceMappingURL=${bundle}.map\n`);
  writeFileSync(join(out, bundle), ascii(code));
  writeFileSync(
    join(out, `${bundle}.map`),
    JSON.stringify(fixMap(join(out, 'index.js.map'), bundle)),
  );
  rmSync(join(out, 'index.js.map'));
  // The chunks loaded on demand (octokit, the CLI's commands) have maps of their own.
  for (const chunk of readdirSync(out).filter((f) => /^\d+\.index\.js$/.test(f))) {
    writeFileSync(join(out, chunk), ascii(readFileSync(join(out, chunk), 'utf8')));
    const file = join(out, `${chunk}.map`);
    writeFileSync(file, JSON.stringify(fixMap(file, chunk)));
  }
  writeFileSync(join(out, 'index.js'), ascii(loader(name, bundle)));
  chmodSync(join(out, 'index.js'), name === 'cli' ? 0o755 : 0o644);
}

// Every character past ASCII (a dash in a message, a quote in undici's comments) written as
// \uXXXX, which means the same in a string, a regular expression, an identifier or a comment
// (no bundled code reads a template's raw text). Node then reads the bundle without decoding
// UTF-8, and V8 keeps and scans it as one-byte text rather than two-byte: about 2 ms of each
// step's start (docs/performance.md), and for the keeper, which lives as long as the job, its
// source held at half the size: 0.8 MiB less peak RSS. Columns after such a character shift
// in the map.
function ascii(code) {
  // `\—` (an escaped character) would become `\\u2014`: stop rather than change a meaning.
  if (/\\[\u0080-\uffff]/.test(code))
    throw new Error('build: a backslash before a non-ASCII character');
  return code.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function fixMap(file, bundle) {
  const map = JSON.parse(readFileSync(file, 'utf8'));
  map.file = bundle;
  // Leave out the sources' text (the paths name the files in this repository): a smaller map
  // for the repository and for the loader to parse when a crash is printed.
  delete map.sourcesContent;
  // ncc names our modules as if the map sat one folder higher: point them at src/ again.
  map.sources = map.sources.map((source) =>
    source.startsWith('.././') ? `../../${source.slice('.././'.length)}` : source,
  );
  return map;
}

// The loader (scripts/dist-loader.mjs) imports the bundle and maps a crash's stack to src/
// lines when it is printed, rather than turning Node's source maps on for every start.
function loader(name, bundle) {
  const code = readFileSync('scripts/dist-loader.mjs', 'utf8').replace(
    "import('./BUNDLE.js')",
    `import('./${bundle}')`,
  );
  return `${name === 'cli' ? '#!/usr/bin/env node\n' : ''}${code}`;
}

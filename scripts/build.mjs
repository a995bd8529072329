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
  writeFileSync(join(out, bundle), code);
  writeFileSync(
    join(out, `${bundle}.map`),
    JSON.stringify(fixMap(join(out, 'index.js.map'), bundle)),
  );
  rmSync(join(out, 'index.js.map'));
  // The chunks loaded on demand (octokit, the CLI's commands) have maps of their own.
  for (const chunk of readdirSync(out).filter((f) => /^\d+\.index\.js$/.test(f))) {
    const file = join(out, `${chunk}.map`);
    writeFileSync(file, JSON.stringify(fixMap(file, chunk)));
  }
  writeFileSync(join(out, 'index.js'), loader(name, bundle));
  if (name === 'keeper') asciiOnly(out);
  chmodSync(join(out, 'index.js'), name === 'cli' ? 0o755 : 0o644);
}

// V8 keeps a script's source in memory as long as the script lives, two bytes a character if
// one character of it is past Latin-1 (an arrow or a dash in a comment is enough). The keeper
// lives as long as the job: its bundle's few such characters (in comments and untagged
// templates, where an escape means the same) are written as \u escapes, which keeps its 0.9 MB
// of source one byte a character: 0.8 MiB less peak RSS (docs/performance.md, keeper). Only a
// crash's column on those few lines moves.
function asciiOnly(out) {
  for (const file of readdirSync(out).filter((f) => f.endsWith('.js'))) {
    const code = readFileSync(join(out, file), 'utf8');
    const escaped = code.replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    if (escaped !== code) writeFileSync(join(out, file), escaped);
  }
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

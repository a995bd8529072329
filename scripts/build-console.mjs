// Builds the console and the playground pages into dist/console/ (served by the
// kernel), or with --site <dir> the playground alone as a static site (GitHub Pages).
// Rolldown is the bundler vite 8 already brings (no second toolchain); output is
// minified and deterministic, so CI's dist/ comparison holds.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'rolldown';

const PAGE = 'src/console/page';
const site = process.argv.indexOf('--site');
const siteDir = site >= 0 ? (process.argv[site + 1] ?? 'site') : undefined;
const out = siteDir ?? 'dist/console';
const assets = siteDir ? join(out, 'console') : out;
const scripts = siteDir ? ['playground'] : ['console', 'playground'];

rmSync(out, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });
for (const name of scripts) {
  await build({
    input: join(PAGE, `${name}.ts`),
    platform: 'browser',
    logLevel: 'warn',
    write: true,
    output: { file: join(assets, `${name}.js`), format: 'esm', minify: true, comments: false },
  });
}
copyFileSync(join(PAGE, 'console.css'), join(assets, 'console.css'));

if (siteDir) {
  // A static host sets no headers: the policy travels in the page.
  const policy = `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'`;
  const html = readFileSync(join(PAGE, 'playground.html'), 'utf8')
    .replace(
      '<meta charset="utf-8" />',
      `<meta charset="utf-8" />\n    <meta http-equiv="Content-Security-Policy" content="${policy}" />`,
    )
    .replace(/<nav>.*<\/nav>/, '')
    // The kernel serves /favicon.svg; a static site (GitHub Pages serves it under /<repo>/)
    // carries its own copy, beside the page and asked for relative to it.
    .replace('href="/favicon.svg"', 'href="favicon.svg"');
  writeFileSync(join(out, 'index.html'), html);
  writeFileSync(join(out, 'favicon.svg'), favicon());
  console.log(`playground site in ${out}/`);
} else {
  copyFileSync(join(PAGE, 'index.html'), join(out, 'index.html'));
  copyFileSync(join(PAGE, 'playground.html'), join(out, 'playground.html'));
}

/** The kernel's favicon, read from src/console/serve.ts so there is one drawing. */
function favicon() {
  const served = readFileSync('src/console/serve.ts', 'utf8');
  const svg = /'(<svg [^']*<\/svg>)'/.exec(served)?.[1];
  if (!svg) throw new Error('build-console: no favicon <svg> found in src/console/serve.ts');
  return svg;
}

// The benchmarks' own bundle (bench/*.ts → .tmp/…/index.mjs), with the rolldown that builds
// dist/: one ES module, nothing left out (its start-up is not what it measures).
import { build } from 'rolldown';
import { builtinModules } from 'node:module';

export async function bundleBench(input, dir) {
  await build({
    input,
    platform: 'node',
    logLevel: 'warn',
    resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
    external: [...builtinModules, /^node:/, 'pg-native'],
    write: true,
    output: { dir, format: 'esm', entryFileNames: 'index.mjs', codeSplitting: false },
  });
  return `${dir}/index.mjs`;
}

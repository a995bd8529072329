// licenses.txt of a bundle: each bundled package's name, version, license and its license
// file's text, as ncc wrote them before (what a user of the action redistributes).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';

/** The package folder a module id lies in (the innermost node_modules/<name>). */
function packageDir(id) {
  const at = id.lastIndexOf(`${sep}node_modules${sep}`);
  if (at < 0) return undefined;
  const rest = id.slice(at + `${sep}node_modules${sep}`.length).split(sep);
  const name = rest[0].startsWith('@') ? rest.slice(0, 2).join(sep) : rest[0];
  return join(id.slice(0, at), 'node_modules', name);
}

function licenseFile(dir) {
  const name = readdirSync(dir).find((f) => /^(license|licence|copying)(\.(md|txt))?$/i.test(f));
  return name ? readFileSync(join(dir, name), 'utf8').trim() : '';
}

export function licenseText(moduleIds) {
  const dirs = new Set(
    moduleIds.map(packageDir).filter((d) => d && existsSync(join(d, 'package.json'))),
  );
  const entries = [...dirs].map((dir) => {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    return {
      name: pkg.name,
      version: pkg.version,
      license: pkg.license ?? '',
      text: licenseFile(dir),
    };
  });
  entries.sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.version < b.version ? -1 : 1,
  );
  return entries.map((e) => `${e.name}@${e.version}\n${e.license}\n${e.text}\n`).join('\n');
}

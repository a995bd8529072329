// Validates action.yml, every workflow and dependabot.yml offline, and holds the repository's
// own rules for them: every action pinned by a full commit SHA with its version in a comment,
// and .node-version naming the runtime action.yml runs on. Prints one line per problem.
import actionValidator from '@action-validator/core';
import { readFileSync, readdirSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';

const problems = [];
const read = (file) => readFileSync(file, 'utf8');

// The validator's bundled schema stops at node20; GitHub runs node24 actions. Check the
// runtime here and the rest of the file with the schema.
const actionText = read('action.yml');
const using = /^ {2}using: (\S+)$/m.exec(actionText)?.[1];
if (!using || !/^node(20|24)$/.test(using))
  problems.push(`action.yml: runs.using is '${using}'; expected node20 or node24`);
report(
  'action.yml',
  actionValidator.validateAction(actionText.replace(/using: node24/, 'using: node20')),
);

const workflows = readdirSync('.github/workflows').filter((f) => /\.ya?ml$/.test(f));
for (const name of workflows) {
  const file = `.github/workflows/${name}`;
  const text = read(file);
  report(file, actionValidator.validateWorkflow(text));
  text.split('\n').forEach((line, i) => {
    const uses = /^\s*(?:-\s+)?uses:\s*(\S+)(.*)$/.exec(line);
    if (!uses || uses[1].startsWith('./') || uses[1].startsWith('docker://')) return;
    if (
      !/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/.test(uses[1]) ||
      !/^\s+# v\d+(\.\d+)*\s*$/.test(uses[2])
    )
      problems.push(
        `${file}:${i + 1}: pin '${uses[1]}' by its full commit SHA, with '# vX.Y.Z' after it`,
      );
  });
}

const interval = z.enum([
  'daily',
  'weekly',
  'monthly',
  'quarterly',
  'semiannually',
  'yearly',
  'cron',
]);
const dependabot = z.strictObject({
  version: z.literal(2),
  updates: z
    .array(
      z.looseObject({
        'package-ecosystem': z.enum(['npm', 'github-actions', 'docker', 'pip', 'gomod', 'cargo']),
        directory: z.string().startsWith('/'),
        schedule: z.looseObject({ interval }),
        ignore: z
          .array(
            z.strictObject({
              'dependency-name': z.string(),
              'update-types': z.array(z.string()).optional(),
              versions: z.array(z.string()).optional(),
            }),
          )
          .optional(),
      }),
    )
    .min(1),
});
const checked = dependabot.safeParse(parse(read('.github/dependabot.yml')));
if (!checked.success)
  for (const issue of checked.error.issues)
    problems.push(`.github/dependabot.yml: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
else {
  const ecosystems = checked.data.updates.map((u) => u['package-ecosystem']);
  for (const needed of ['npm', 'github-actions'])
    if (!ecosystems.includes(needed))
      problems.push(`.github/dependabot.yml: no '${needed}' updates`);
}

const nodeVersion = read('.node-version').trim();
if (using && nodeVersion.split('.')[0] !== using.replace('node', ''))
  problems.push(`.node-version says ${nodeVersion}; action.yml runs on ${using}`);

if (problems.length) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(`workflows: action.yml, ${workflows.length} workflows and dependabot.yml are valid`);

function report(file, result) {
  for (const error of result.errors ?? []) {
    // A oneOf failure says little by itself: name what its first alternative rejected.
    const nested = (error.states?.[0]?.errors ?? []).map(
      (e) => e.detail ?? `${e.path}: ${e.title}`,
    );
    const detail = [error.detail, ...nested].filter(Boolean).join('; ');
    problems.push(`${file}: ${error.path || '/'}: ${error.title}${detail ? ` (${detail})` : ''}`);
  }
}

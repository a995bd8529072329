import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One rule of a kernel's OIDC policy: the resources a token with these claims may lease. */
export interface PolicyRule {
  name: string;
  resources: string[];
  claims: Record<string, string>;
}

/** The kernel's OIDC policy file (`--policy`) with these rules, written in `dir`: its path. */
export function writePolicy(dir: string, rules: PolicyRule[]): string {
  const file = join(dir, 'policy.json');
  writeFileSync(file, JSON.stringify({ rules }));
  return file;
}

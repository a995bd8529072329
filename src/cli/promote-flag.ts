import { PROMOTE_FORM, parsePromotion, promotionChain } from '../ledger/promotion.js';
import { untrusted } from '../lease/escape.js';
import { UsageError } from './options.js';

/**
 * `--promote FROM->TO`, repeated (the kernel's order, and verify's check of it): each
 * resource's one step before it, with no loop; bad input is refused naming the form.
 */
export function promoteFlag(specs: readonly string[]): Map<string, string> | undefined {
  if (!specs.length) return undefined;
  const steps = specs.map((spec) => {
    const step = parsePromotion(spec);
    if (!step) throw new UsageError(invalidPromote(spec));
    return step;
  });
  const chain = promotionChain(steps);
  if (typeof chain === 'string') throw new UsageError(`Invalid --promote: ${chain}.`);
  return chain;
}

/**
 * A FROM that ends in '-' with no '->' is what a shell leaves of an unquoted `dev->staging`:
 * it reads `>staging` as a redirect (and makes a file named staging), so say to quote it.
 */
function invalidPromote(spec: string): string {
  const shown = untrusted(spec, 100);
  if (spec.length > 1 && spec.endsWith('-') && !spec.includes('->')) {
    return `Invalid --promote '${shown}': a shell reads an unquoted ${shown}>TO as '${shown}' and a redirect to a file TO. Quote it: --promote '${shown}>TO'.`;
  }
  return `Invalid --promote '${shown}'. Expected ${PROMOTE_FORM}.`;
}

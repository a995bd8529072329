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
    if (!step)
      throw new UsageError(
        `Invalid --promote '${untrusted(spec, 100)}'. Expected ${PROMOTE_FORM}.`,
      );
    return step;
  });
  const chain = promotionChain(steps);
  if (typeof chain === 'string') throw new UsageError(`Invalid --promote: ${chain}.`);
  return chain;
}

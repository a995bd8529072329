/**
 * The one door from the pages to the kernel's pure core: the playground runs
 * these very rules in the browser. Re-point this file when the core moves.
 */
export { LeaseKernel, type KernelEvent } from '../../kernel/rules/core.js';

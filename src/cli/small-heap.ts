import { setFlagsFromString } from 'node:v8';

/**
 * For a command that streams a ledger of any size (`verify`, `ledger export`), whose live
 * memory is a page or an entry and the checker's bounded state: V8's defaults size the heap
 * for throughput, and grow it with the work, not with what stays alive. The young
 * generation doubles each time the bytes that survived its collections since it last grew
 * exceed its size, so any long steady allocation, however little of it survives, takes it
 * to its maximum (64 MiB a semi-space on Node 24: 128 MiB of a 1M-entry verify's 288 MiB
 * peak RSS); the old generation may grow to about four times what was live at its last
 * collection. Here the young generation keeps its first size and the old one grows as for
 * a small device (`--optimize-for-size`): more, shorter collections, and a peak that does
 * not grow with the ledger (docs/performance.md, "export and verify"). Both flags are read
 * when V8 decides to grow, so setting them now takes effect; the process is the command's.
 */
export function keepHeapSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--optimize-for-size');
}

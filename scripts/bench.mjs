// npm run bench: bundles bench/ (scripts/bench-bundle.mjs) and runs it.
// Not part of npm test; loopback only; about 25 minutes on two cores, every figure of
// docs/performance.md from one run (issue #59's PostgreSQL goals, export and verify at
// 1,000,000 entries, start-up and the keeper included, each beside its goal). It measures
// the committed dist/ (CI keeps it equal to src/): run `npm run build` first after
// changing src/. Writes docs/performance.md (formatted as the repository's other
// files are) and bench-results.json, or the path given as its argument.
// `npm run bench -- waiting` runs only the handover and plane-load table (about two minutes).
// `npm run bench -- paired [rounds]` runs only the kernel (memory) against the node:http
// echo, alternated, and prints the median ratio (about 20 s a pair; writes nothing).
// `npm run bench -- metrics [pairs]` runs only lock cycles on the memory kernel with its
// metrics on (scraped every second) and off, alternated, and prints the ratio (goal ≥ 0.95).
// `npm run bench -- startup [DIST ...]` runs only start-up (on Node 24: main to a granted lease
// and post to the lease released, each against bare node, 30 pairs, and what each import on
// main's path costs; DIST folders given are measured in the same rounds) and the keeper's
// cost, printed.
// `npm run bench -- plane` runs only issue #23's plane table (kernel memory and file,
// PostgreSQL 1–3 replicas, etcd and pgbench when installed) and the long-running kernel,
// and prints them (writes nothing); LEASE_GATE_BENCH_CHANGES sets the long run's changes
// (default 1,000,000), LEASE_GATE_BENCH_PLANE_SECONDS each cell's seconds (default 5).
// `npm run bench -- plane-postgres` runs only its PostgreSQL columns and pgbench, and
// what a change costs there; `npm run bench -- pg-cost` only that cost (round trips to
// the database and CPU per change, 1–3 replicas and pgbench, each beside pgbench's rate,
// then handover beside pg_advisory_lock's, about three minutes); `npm run bench -- pg-handover
// [pairs] [CLI ...]` only the one-replica handover beside pg_advisory_lock's, alternated over the
// CLIs given (default dist/cli/index.js; e.g. a copy of main's dist/ against a new build), and
// across two replicas too with LEASE_GATE_BENCH_TWO_REPLICAS=1;
// `npm run bench -- pg-long` only the long-running PostgreSQL replica
// (LEASE_GATE_BENCH_PG_CHANGES changes, default 200,000). `npm run bench -- export` runs only
// `ledger export` and `verify` of 200,000 and 1,000,000 entries: peak RSS and time per entry.
import { execFileSync } from 'node:child_process';
import { bundleBench } from './bench-bundle.mjs';

const bench = await bundleBench('bench/index.ts', '.tmp/bench');
execFileSync(process.execPath, [bench, ...process.argv.slice(2)], {
  stdio: 'inherit',
});
execFileSync('npx', ['prettier', '--log-level', 'warn', '--write', 'docs/performance.md'], {
  stdio: 'inherit',
});

import { loadavg } from 'node:os';
import { ledgerEntries, queued, startRace, until } from './revoke-race.js';
import { max, median, percentile, round } from './stats.js';

/**
 * Revoke to stopped and revoke to next grant, over N revokes between two real
 * `lease-gate run`s (from source) on one kernel process:
 *
 *   npx tsx bench/revoke.ts [revokes=20]
 *
 * Each round: A runs a command tree (a node process and its child, writing a
 * line every 10 ms), B waits, the operator revokes A. "Stopped" is A's last
 * line after the revoke (its tree writes every 10 ms, so it was gone within
 * 10 ms of that); "next grant" is B's grant in the kernel's ledger after the
 * revoke entry, both on the kernel's clock.
 */

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 20);
  const load = loadavg()[0]!;
  const race = await startRace();
  const stopped: number[] = [];
  const granted: number[] = [];
  const overlaps: number[] = [];
  try {
    for (let i = 0; i < rounds; i += 1) {
      const a = race.run(`a${i}`);
      await until(() => race.lines().has(`a${i}-child`), 60_000, `a${i}`);
      const b = race.run(`b${i}`);
      await until(() => queued(race.url, `b${i}`), 60_000, `b${i} waiting`);
      const revokedAt = Date.now();
      await race.revoke(`round ${i}`);
      await a.exited;
      await until(() => race.lines().has(`b${i}-child`), 60_000, `b${i} running`);
      b.child.kill('SIGTERM');
      await b.exited;
      const lines = race.lines();
      const lastA = max([...lines.get(`a${i}`)!, ...lines.get(`a${i}-child`)!]);
      const firstB = Math.min(...lines.get(`b${i}`)!, ...lines.get(`b${i}-child`)!);
      overlaps.push(lastA >= firstB ? 1 : 0);
      stopped.push(Math.max(0, lastA - revokedAt));
      const entries = await ledgerEntries(race.url);
      const revoke = entries.findLast((e) => e.kind === 'revoke' && e.actorDid.endsWith(`:a${i}`));
      const grant = entries.find(
        (e) => e.kind === 'grant' && e.actorDid.endsWith(`:b${i}`) && e.tsMs >= (revoke?.tsMs ?? 0),
      );
      if (!revoke || !grant) throw new Error(`round ${i}: no revoke or grant in the ledger`);
      granted.push(grant.tsMs - revoke.tsMs);
      process.stderr.write(
        `round ${i + 1}/${rounds}: stopped ${stopped.at(-1)} ms, next grant ${granted.at(-1)} ms\n`,
      );
    }
  } finally {
    await race.close();
  }
  const row = (name: string, values: number[]) =>
    `| ${name} | ${round(median(values), 0)} ms | ${round(percentile(values, 95), 0)} ms | ${round(max(values), 0)} ms |`;
  console.log(`${rounds} revokes, load average ${round(load)} → ${round(loadavg()[0]!)}`);
  console.log('| figure | p50 | p95 | max |\n| --- | ---: | ---: | ---: |');
  console.log(row('revoke → A’s command tree stopped (last line)', stopped));
  console.log(row('revoke → B granted (ledger)', granted));
  console.log(
    `rounds where an A line came after B's first: ${overlaps.reduce((x, y) => x + y, 0)}`,
  );
}

await main();

import { expect, it } from 'vitest';
import { templated } from '../src/kernel/postgres/commit.js';

const M = '\u0001';

it('marks each placeholder fence and placeholder lease id in one pass, nothing else', () => {
  const ids = new Map([
    ['lease_-1_00ff', 1],
    ['lease_-b_abcd', 11],
  ]);
  const json = JSON.stringify({
    lease: { id: 'lease_-1_00ff', fence: -1 },
    next: { id: 'lease_-b_abcd', fence: -11, other: 'lease_-1_00ff' },
    events: [{ fence: 7, leaseId: 'lease_-2_0000' }, { reason: 'not "lease_-1_00ff" here' }],
    kept: 'lease_-1_00ffx',
  });
  const m = (s: string) => s.replaceAll('#', M);
  expect(templated(json, ids)).toBe(
    m(
      '{"lease":{"id":"lease_#b1#_00ff","fence":#1#},' +
        '"next":{"id":"lease_#b11#_abcd","fence":#11#,"other":"lease_#b1#_00ff"},' +
        '"events":[{"fence":7,"leaseId":"lease_-2_0000"},{"reason":"not \\"lease_-1_00ff\\" here"}],' +
        '"kept":"lease_-1_00ffx"}',
    ),
  );
});

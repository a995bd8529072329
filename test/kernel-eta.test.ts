import { describe, expect, it } from 'vitest';
import { LeaseKernel } from '../src/kernel/rules/core.js';
import { describePlace, describeWaitState } from '../src/lease/texts.js';
import { R } from './support/names.js';

/** Where a waiter stands: its position and an estimate from recent hold times. */

const did = (n: string) => `did:web:acme.example:agent:${n}`;

describe('etaMs', () => {
  it('is what the holder has left of a typical hold plus one typical hold per waiter ahead', () => {
    const kernel = new LeaseKernel({ ttlMs: 600_000 });
    // Nothing has ended yet: no estimate.
    kernel.lease(R, did('a'), 0);
    expect(kernel.lease(R, did('b'), 1_000)).not.toHaveProperty('etaMs');
    // A first hold of 120 s sets the typical hold.
    kernel.release(R, did('a'), 120_000);
    kernel.release(R, did('b'), 120_000);
    kernel.lease(R, did('c'), 120_000);
    const second = kernel.lease(R, did('d'), 150_000);
    expect(second).toMatchObject({ position: 0, etaMs: 90_000 });
    expect(kernel.lease(R, did('e'), 150_000)).toMatchObject({ position: 1, etaMs: 210_000 });
    // A holder past its typical hold is expected to end any moment, and is said to be overdue;
    // the one behind still waits a typical hold after it.
    const overdue = kernel.lease(R, did('d'), 400_000);
    expect(overdue).toMatchObject({ position: 0, etaMs: 0, overdueMs: 160_000 });
    expect(kernel.lease(R, did('e'), 400_000)).toMatchObject({
      position: 1,
      etaMs: 120_000,
      overdueMs: 160_000,
    });
    expect(second).not.toHaveProperty('overdueMs');
  });

  it("is said in the gate's notice", () => {
    expect(describePlace(2, 6 * 60_000)).toBe('3rd in line; about 6m at recent hold times');
    expect(describePlace(0, 20_000)).toBe('next in line; about 20s at recent hold times');
    expect(describePlace(10, undefined)).toBe('11th in line');
    expect(describePlace(undefined, 5_000)).toBe('about 5s at recent hold times');
    // Past the typical hold: overdue by how much, never "about 0ms".
    expect(describePlace(0, 0, 160_000)).toBe(
      'next in line; the holder is overdue by 2m 40s at recent hold times',
    );
    expect(describePlace(1, 120_000, 160_000)).toBe(
      '2nd in line; the holder is overdue by 2m 40s at recent hold times; about 2m at recent hold times',
    );
    expect(describePlace(0, 0)).toBe('next in line; any moment now at recent hold times');
    expect(
      describeWaitState({ holder: did('a'), reserved: false, position: 1, etaMs: 120_000 }),
    ).toMatch(/^held by .* \(2nd in line; about 2m at recent hold times\)$/);
  });
});

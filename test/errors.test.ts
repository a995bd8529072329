import { describe, expect, it } from 'vitest';
import { causeText, errorMessage, LeaseGateError } from '../src/errors.js';

describe('errorMessage and causeText', () => {
  it('prints ours as written, a system error with its hint, anything else as unexpected', () => {
    expect(errorMessage(new LeaseGateError('Cannot read x.'))).toBe('Cannot read x.');
    const missing = Object.assign(new Error("ENOENT: open 'x'\n    at stack"), { code: 'ENOENT' });
    expect(errorMessage(missing)).toBe("ENOENT: open 'x' (no such file or directory)");
    expect(errorMessage(new Error('boom\nmore'))).toBe('Unexpected error: boom');
    expect(errorMessage('plain')).toBe('Unexpected error: plain');
  });

  it('gives the inner words of a longer message: one line, no prefix, no hint', () => {
    const missing = Object.assign(new Error("ENOENT: open 'x'"), { code: 'ENOENT' });
    expect(causeText(missing)).toBe("ENOENT: open 'x'");
    expect(causeText(new Error('Unexpected token } in JSON'))).toBe('Unexpected token } in JSON');
    // @actions/core puts the reason on later lines: kept, on one line.
    expect(causeText(new Error('Failed to get ID Token. \n \n  Error Code : 500\n'))).toBe(
      'Failed to get ID Token. Error Code : 500',
    );
    expect(causeText(42)).toBe('42');
    expect(causeText(undefined)).toBe('undefined');
  });

  it('keeps what it wraps as the cause', () => {
    const inner = new Error('inner');
    const outer = new LeaseGateError(`outer: ${causeText(inner)}`, { code: 'x', cause: inner });
    expect(outer.cause).toBe(inner);
    expect(outer.code).toBe('x');
    expect('cause' in new LeaseGateError('no cause')).toBe(false);
  });
});

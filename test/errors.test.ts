import { describe, expect, it } from 'vitest';
import {
  causeText,
  ERROR_CODES,
  errorMessage,
  InternalError,
  LeaseGateError,
} from '../src/errors.js';
import { HttpError } from '../src/http/errors.js';
import { StoreError, StoreUnavailableError } from '../src/kernel/store/store-error.js';
import { SchemaTooNewError } from '../src/kernel/postgres/migrations.js';
import { ApiRefusal } from '../src/kernel/http/api.js';
import { LeaseRefusedError, LeaseRevokedError } from '../src/gate/wait.js';
import { BrokenGrantError } from '../src/plane/grant.js';
import { ContractError, TransientError } from '../src/plane/errors.js';
import { UsageError } from '../src/cli/options.js';

describe('errorMessage and causeText', () => {
  it('prints ours as written, a system error with its hint, anything else as unexpected', () => {
    expect(errorMessage(new UsageError('Cannot read x.'))).toBe('Cannot read x.');
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
    const outer = new LeaseGateError(`outer: ${causeText(inner)}`, { code: 'store', cause: inner });
    expect(outer.cause).toBe(inner);
    expect(outer.code).toBe('store');
    expect('cause' in new LeaseGateError('no cause', { code: 'store' })).toBe(false);
    expect('cause' in new StoreError('no cause', { cause: undefined })).toBe(false);
  });
});

describe('the error base', () => {
  it('prints a store that cannot write by its message, not as unexpected', () => {
    const down = new StoreUnavailableError("the kernel's store cannot write: EIO");
    expect(down).toBeInstanceOf(LeaseGateError);
    expect(down.code).toBe('store_unavailable');
    expect(errorMessage(down)).toBe("the kernel's store cannot write: EIO");
  });

  it('names a bug of ours as unexpected, with its code', () => {
    const bug = new InternalError('a batch granted more leases than it drew fences');
    expect(bug.code).toBe('internal');
    expect(errorMessage(bug)).toBe(
      'Unexpected error: a batch granted more leases than it drew fences',
    );
  });

  it('gives each kind its code, a subclass its own', () => {
    expect(new StoreError('x').code).toBe('store');
    expect(new SchemaTooNewError('x')).toBeInstanceOf(StoreError);
    expect(new SchemaTooNewError('x').code).toBe('store_schema_too_new');
    expect(new UsageError('x').code).toBe('usage');
    const revoked = new LeaseRevokedError({ resource: 'prod', operatorMessage: 'incident' });
    expect(revoked).toBeInstanceOf(LeaseRefusedError);
    expect(revoked.code).toBe('lease_revoked');
    expect(revoked.message).toBe('prod was revoked for this agent by an operator: incident');
    expect(new LeaseRefusedError({ reason: 'actor_suspended' }).code).toBe('lease_refused');
    const broken = new BrokenGrantError('broken', {
      call: 'c',
      status: 200,
      field: 'fence',
      gaveBack: true,
    });
    expect(broken).toBeInstanceOf(ContractError);
    expect(broken.code).toBe('plane_broken_grant');
    expect(new ContractError('x', { call: 'c' }).code).toBe('plane_contract');
    for (const error of [down(), broken, revoked]) expect(ERROR_CODES).toContain(error.code);
  });

  it('takes its fields by name, and the cause beside them', () => {
    const inner = new Error('ECONNRESET');
    const http = new HttpError('[GET] "u": reset', {
      failure: 'network',
      call: '[GET] "u"',
      cause: inner,
    });
    expect([http.code, http.failure, http.call, http.cause]).toEqual([
      'http_network',
      'network',
      '[GET] "u"',
      inner,
    ]);
    const transient = new TransientError('busy', { call: 'c', status: 503, retryAfterMs: 1_000 });
    expect([transient.code, transient.status, transient.retryAfterMs]).toEqual([
      'plane_transient',
      503,
      1_000,
    ]);
    expect('cause' in transient).toBe(false);
    const refusal = new ApiRefusal('No route.', { status: 404, reason: 'not_found' });
    expect([refusal.code, refusal.status, refusal.reason, refusal.message]).toEqual([
      'api_refusal',
      404,
      'not_found',
      'No route.',
    ]);
  });

  it('lists each code once', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });
});

function down(): StoreUnavailableError {
  return new StoreUnavailableError('down');
}

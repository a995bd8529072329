import type { KeyObject } from 'node:crypto';
import type pg from 'pg';
import { originFor } from '../../ledger/checkpoint.js';
import { StoreError } from '../store/store-error.js';

/** A replica whose signing key is not the plane's: it must not serve (one line, exit 1). */
export class PlaneKeyError extends StoreError {
  override name = 'PlaneKeyError';
}

/**
 * Records the plane's public key at its first start (the first replica's to commit wins)
 * and refuses a replica whose key differs: its checkpoints over the shared ledger would
 * not verify against the key the plane published. An unsigned ledger (tests) records none.
 */
export async function checkPlaneKey(
  client: pg.ClientBase,
  publicKey: KeyObject | undefined,
): Promise<void> {
  if (!publicKey) return;
  const origin = originFor(publicKey);
  const pem = String(publicKey.export({ type: 'spki', format: 'pem' }));
  // Of replicas that start together one inserts the row; the others' inserts wait for its
  // commit and do nothing, and each then reads the row that won (read committed).
  await client.query(
    `INSERT INTO lease_gate_plane_key (id, origin, public_key) VALUES (1, $1, $2)
       ON CONFLICT (id) DO NOTHING`,
    [origin, pem],
  );
  const { rows } = await client.query<{ origin: string; public_key: string; recorded: string }>(
    `SELECT origin, public_key, to_char(recorded_at AT TIME ZONE 'UTC',
       'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS recorded FROM lease_gate_plane_key WHERE id = 1`,
  );
  const plane = rows[0];
  if (!plane) throw new StoreError("the plane's public key is not recorded");
  if (plane.public_key.trim() !== pem.trim())
    throw new PlaneKeyError(
      `this replica's --signing-key signs as ${origin}, but the plane's ledger is signed by ${plane.origin} (recorded ${plane.recorded}): start every replica with the plane's --signing-key FILE`,
    );
}

import type pg from 'pg';
import { entrySchema } from '../../ledger/entry.js';
import { FETCH_CHUNK, FetchedLines } from '../../ledger/fetched-lines.js';
import type { Ledger, LedgerSnapshot } from '../../ledger/ledger.js';
import { StoreError } from '../store/store-error.js';
import { describe } from './connect.js';

const PAGE = 5_000;
/** The tree's frontier is saved first at this size, then each time the ledger doubles … */
const TREE_FIRST = 1_024;
/** … or grows by this many entries. */
const TREE_EVERY = 65_536;

/** A statement on the backend's pool; a failure is already a StoreUnavailableError. */
export type Query = <R extends pg.QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<pg.QueryResult<R>>;

/**
 * A replica's ledger over lease_gate_ledger (postgres/backend.ts): the lines stay in the
 * database, and the replica keeps the Merkle tree's chunk roots, reads back the lines a
 * route asks for (FetchedLines), loads what was numbered since its last read, and saves
 * the tree's frontier in lease_gate_tree so that a replica that starts reads only the
 * rows after it.
 */
export class PostgresLedger {
  private reading: Promise<void> | undefined;
  private readNext: Promise<void> | undefined;
  /** The size of the tree's frontier last saved or restored here. */
  private savedTree = 0;

  constructor(
    private readonly ledger: Ledger,
    private readonly schema: string,
    private readonly query: Query,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * A read of the ledger that starts after this call: a read already in flight may have
   * taken its snapshot before the caller's pass committed, so it is followed by one more
   * (shared by every caller that comes while it waits). One read at a time loads entries.
   */
  readAfterNow(): Promise<void> {
    if (this.readNext) return this.readNext;
    if (!this.reading) {
      const reading = this.readLedger().finally(() => {
        this.reading = undefined;
      });
      this.reading = reading;
      return reading;
    }
    const next = this.reading
      .catch(() => undefined)
      .then(() => {
        this.readNext = undefined;
        return this.readAfterNow();
      });
    this.readNext = next;
    return next;
  }

  /** Loads the entries numbered since the last read, a page at a time. */
  private async readLedger(): Promise<void> {
    for (;;) {
      const { rows } = await this.query<{ line: string }>(
        'SELECT line FROM lease_gate_ledger WHERE seq >= $1 ORDER BY seq LIMIT $2',
        [this.ledger.size, PAGE],
      );
      for (const { line } of rows) {
        this.ledger.load(line, `${this.schema}.lease_gate_ledger entry ${this.ledger.size}`);
      }
      if (rows.length < PAGE) break;
    }
    await this.saveTree();
  }

  private fetchedLines(): FetchedLines {
    return new FetchedLines((lo, hi) => this.linesBetween(lo, hi));
  }

  /**
   * Starts the ledger's tree from the frontier saved in lease_gate_tree when it
   * agrees with the rows (its chunk roots and the rows after them give the root
   * it names, and its last stamp is the stamp of the row before its size): then
   * only the rows after it are read. Otherwise the tree starts empty and is
   * built from every row; a saved frontier that did not agree is returned, to
   * be checked against them.
   */
  async openTree(): Promise<LedgerSnapshot | undefined> {
    const { rows } = await this.query<{
      size: string;
      last_ts: string;
      root: string;
      chunk_roots: string;
    }>('SELECT size, last_ts, root, chunk_roots FROM lease_gate_tree WHERE id = 1');
    const row = rows[0];
    if (!row) {
      this.ledger.readFrom(this.fetchedLines());
      return undefined;
    }
    const snapshot = {
      size: Number(row.size),
      lastTs: Number(row.last_ts),
      root: row.root,
      chunkRoots: row.chunk_roots,
    };
    const lines = this.fetchedLines();
    try {
      lines.restore(snapshot.size);
      const tail = snapshot.size - (snapshot.size % FETCH_CHUNK);
      await lines.load(Math.max(0, Math.min(tail, snapshot.size - 1)), snapshot.size);
      if (snapshot.size > 0) {
        // The row's own text never reaches the log: a parse error would quote it.
        const last = entrySchema.safeParse(parseJson(lines.at(snapshot.size - 1)));
        if (!last.success || last.data.seq !== snapshot.size - 1)
          throw new Error('its last row is not the ledger entry before its size');
        if (last.data.tsMs !== snapshot.lastTs)
          throw new Error('its last stamp is not the last row’s');
      }
      this.ledger.restoreFrom(lines, snapshot);
      this.savedTree = snapshot.size;
      return undefined;
    } catch (error) {
      this.log(
        `kernel: the ledger tree saved at ${snapshot.size} entries does not agree with ${this.schema}.lease_gate_ledger (${describe(error)}); building it from every row`,
      );
      this.ledger.readFrom(this.fetchedLines());
      return snapshot;
    }
  }

  /**
   * After a tree built from every row because the saved frontier did not
   * agree: when the rows reach its size, their root there must be the one it
   * names. Else a row changed after it was saved (or the frontier is wrong),
   * and a replica started from the frontier would sign another root for the
   * same size: this one refuses to start rather than sign either.
   */
  async checkRowsAgainst(frontier: LedgerSnapshot): Promise<void> {
    const { size } = frontier;
    if (this.ledger.size < size) {
      this.log(
        `kernel: ${this.schema}.lease_gate_ledger has ${this.ledger.size} entries, fewer than the ${size} its saved tree had (restored from a backup?)`,
      );
      return;
    }
    const root = await this.ledger.read(size, size, size, () => this.ledger.rootAt(size));
    if (root !== frontier.root)
      throw new StoreError(
        `the rows of ${this.schema}.lease_gate_ledger before entry ${size} do not hash to the tree saved at ${size} entries in lease_gate_tree: a row changed after it was signed, or the saved tree is wrong. This replica signs neither; compare an export with an earlier one, and delete the row of lease_gate_tree only once the ledger's rows are known to be right`,
      );
  }

  /**
   * Saves the tree's frontier once it has grown by as many entries as it had
   * (and every 65,536 at most), so a replica that starts reads only the rows
   * after it; a newer one is never replaced by an older. A failure is told and
   * costs only time at the next start.
   */
  private async saveTree(): Promise<void> {
    const size = this.ledger.size;
    if (size - this.savedTree < Math.max(TREE_FIRST, Math.min(this.savedTree, TREE_EVERY))) return;
    const snapshot = this.ledger.snapshot();
    try {
      await this.query(
        `INSERT INTO lease_gate_tree AS t (id, size, last_ts, root, chunk_roots)
              VALUES (1, $1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET size = EXCLUDED.size, last_ts = EXCLUDED.last_ts,
                root = EXCLUDED.root, chunk_roots = EXCLUDED.chunk_roots
          WHERE t.size < EXCLUDED.size`,
        [snapshot.size, snapshot.lastTs, snapshot.root, snapshot.chunkRoots],
      );
      this.savedTree = size;
    } catch (error) {
      this.log(`kernel: could not save the ledger tree's frontier: ${describe(error)}`);
    }
  }

  /** See PlaneService.searchLedger: one statement, however far back it looks. */
  async search(needle: string, from: number, limit: number): Promise<number[]> {
    const { rows } = await this.query<{ seq: string }>(
      'SELECT seq FROM lease_gate_ledger WHERE seq >= $1 AND strpos(line, $2) > 0 ORDER BY seq DESC LIMIT $3',
      [from, needle, limit],
    );
    return rows.map((r) => Number(r.seq));
  }

  /** Ledger lines [lo, hi), in order, as they were numbered. */
  private async linesBetween(lo: number, hi: number): Promise<string[]> {
    const { rows } = await this.query<{ line: string }>(
      'SELECT line FROM lease_gate_ledger WHERE seq >= $1 AND seq < $2 ORDER BY seq',
      [lo, hi],
    );
    return rows.map((r) => r.line);
  }
}

/** JSON text as a value, or undefined when it is not JSON (the caller says what it expected). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

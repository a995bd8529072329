interface Waiting<T, R> {
  item: T;
  resolve(value: R): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export interface GroupCommitOptions {
  /** Calls committed together at most. */
  maxBatch: number;
  /** Batches in flight at once (each holds one connection). */
  slots: number;
  /** How long a call may wait for a batch to take it before it is refused. */
  waitMs: number;
  /** The refusal of a call that waited too long. */
  busy: () => Error;
}

/**
 * Group commit for a transactional store: calls that arrive while every slot
 * is committing wait and go together in the next batch, so one WAL flush (and
 * one turn of the ledger head's lock) serves many calls. Few slots: each
 * batch holds the ledger head's lock to its COMMIT, so more in flight would
 * only queue on it. A call that waits longer than `waitMs` (every slot stuck
 * on a locked row) is refused at once, as a busy pool refuses a connection.
 */
export class GroupCommit<T, R> {
  private waiting: Array<Waiting<T, R>> = [];
  private inFlight = 0;

  constructor(
    /** Settles each item; throwing fails the whole batch. */
    private readonly commit: (items: T[]) => Promise<Array<PromiseSettledResult<R>>>,
    private readonly options: GroupCommitOptions,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const entry: Waiting<T, R> = {
        item,
        resolve,
        reject,
        timer: setTimeout(() => {
          const at = this.waiting.indexOf(entry);
          if (at < 0) return;
          this.waiting.splice(at, 1);
          reject(this.options.busy());
        }, this.options.waitMs),
      };
      this.waiting.push(entry);
      this.next();
    });
  }

  private next(): void {
    if (this.inFlight >= this.options.slots || this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, this.options.maxBatch);
    for (const b of batch) clearTimeout(b.timer);
    this.inFlight += 1;
    void this.run(batch).finally(() => {
      this.inFlight -= 1;
      this.next();
    });
  }

  private async run(batch: Array<Waiting<T, R>>): Promise<void> {
    try {
      const results = await this.commit(batch.map((b) => b.item));
      batch.forEach((b, i) => {
        const result = results[i];
        if (result?.status === 'fulfilled') b.resolve(result.value);
        else b.reject(asError(result?.reason ?? 'no result for this call'));
      });
    } catch (error) {
      for (const b of batch) b.reject(asError(error));
    }
  }
}

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

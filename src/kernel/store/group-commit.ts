interface Waiting<T, R> {
  item: T;
  resolve(value: R): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout | undefined;
}

export interface GroupCommitOptions {
  /** Calls committed together at most. */
  maxBatch: number;
  /** Batches in flight at once (each holds one connection). */
  slots: number;
  /** How long a call may wait for a batch to take it before it is refused (Infinity: no limit). */
  waitMs: number;
  /**
   * Gather the calls of one event-loop turn before the first batch starts (an
   * in-process store: one write and one sync for all of them); otherwise a batch
   * starts as soon as a slot is free.
   */
  gatherTurn?: boolean | undefined;
  /** The refusal of a call that waited too long. */
  busy: () => Error;
  /**
   * When set, a batch starts beside the ones in flight only once each of them
   * has taken longer than this (stuck on a locked row, or slow), or when a
   * whole batch waits. One batch at a time gathers the most calls, which on
   * PostgreSQL costs the least per call; a stuck batch still holds back no more
   * than this.
   */
  spareAfterMs?: number | undefined;
}

/**
 * Group commit, for every store: calls that arrive while every slot
 * is committing wait and go together in the next batch, so one WAL flush and
 * one pair of round trips serve many calls. Few slots: on two cores, 4 or 8
 * PostgreSQL batches in flight were slower than 2, and 2 than one at a time
 * with a spare (`spareAfterMs`): smaller batches, more work per call. A call
 * that waits longer than `waitMs` (every slot stuck
 * on a locked row) is refused at once, as a busy pool refuses a connection.
 */
export class GroupCommit<T, R> {
  private waiting: Array<Waiting<T, R>> = [];
  private inFlight = 0;
  private gathering = false;
  private readonly running = new Set<Promise<void>>();
  /** Batches in flight that have not yet taken spareAfterMs. */
  private onTime = 0;
  /** submitTogether calls running: a call submitted meanwhile waits for their end. */
  private together = 0;

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
        timer: Number.isFinite(this.options.waitMs)
          ? setTimeout(() => {
              const at = this.waiting.indexOf(entry);
              if (at < 0) return;
              this.waiting.splice(at, 1);
              reject(this.options.busy());
            }, this.options.waitMs)
          : undefined,
      };
      this.waiting.push(entry);
      if (this.together === 0) this.start();
    });
  }

  /**
   * The calls `submit`ted while `fn` runs (synchronously) wait for it to end, so they go
   * in one batch, in the order submitted (unless a batch's cap splits them): a release and
   * the asks of the requests held for what it frees are committed together.
   */
  submitTogether<X>(fn: () => X): X {
    this.together += 1;
    try {
      return fn();
    } finally {
      this.together -= 1;
      if (this.together === 0 && this.waiting.length > 0) this.start();
    }
  }

  /** A batch now, or at the end of this event-loop turn when the store gathers its calls. */
  private start(): void {
    if (this.options.gatherTurn && this.inFlight === 0) {
      if (this.gathering) return;
      this.gathering = true;
      setImmediate(() => {
        this.gathering = false;
        this.next();
      });
      return;
    }
    this.next();
  }

  /** Resolves once no batch is in flight (a service that is closing waits for its writes). */
  async idle(): Promise<void> {
    while (this.running.size > 0 || this.gathering) {
      await Promise.all([...this.running, new Promise((r) => setImmediate(r))]);
    }
  }

  private next(): void {
    if (this.inFlight >= this.options.slots || this.waiting.length === 0) return;
    const { spareAfterMs, maxBatch } = this.options;
    if (spareAfterMs !== undefined && this.onTime > 0 && this.waiting.length < maxBatch) return;
    const batch = this.waiting.splice(0, maxBatch);
    for (const b of batch) clearTimeout(b.timer);
    this.inFlight += 1;
    let late: NodeJS.Timeout | undefined;
    if (spareAfterMs !== undefined) {
      this.onTime += 1;
      late = setTimeout(() => {
        late = undefined;
        this.onTime -= 1;
        this.next();
      }, spareAfterMs);
      late.unref();
    }
    const run = this.run(batch).finally(() => {
      if (late) {
        clearTimeout(late);
        this.onTime -= 1;
      }
      this.inFlight -= 1;
      this.running.delete(run);
      this.next();
    });
    this.running.add(run);
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

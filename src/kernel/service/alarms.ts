/** A binary min-heap of (time, resource): the next lapse without a scan of every lease. */
export class AlarmHeap {
  private readonly items: Array<{ at: number; resource: string }> = [];

  get size(): number {
    return this.items.length;
  }

  peek(): number | undefined {
    return this.items[0]?.at;
  }

  push(at: number, resource: string): void {
    const items = this.items;
    items.push({ at, resource });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent]!.at <= at) break;
      [items[parent], items[i]] = [items[i]!, items[parent]!];
      i = parent;
    }
  }

  /** Removes and returns the earliest alarm due by `now`. */
  popDue(now: number): { at: number; resource: string } | undefined {
    const items = this.items;
    const top = items[0];
    if (!top || top.at > now) return undefined;
    const last = items.pop()!;
    if (items.length) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && items[l]!.at < items[m]!.at) m = l;
        if (r < items.length && items[r]!.at < items[m]!.at) m = r;
        if (m === i) break;
        [items[m], items[i]] = [items[i]!, items[m]!];
        i = m;
      }
    }
    return top;
  }
}

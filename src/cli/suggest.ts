/**
 * "Did you mean": the closest of the known names to a typo, or undefined when
 * none is close enough to be a guess worth printing (at most a third of the
 * longer name's letters apart, and never more than 3 edits).
 */
export function closest(typed: string, known: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(typed, name);
    const limit = Math.min(3, Math.max(1, Math.floor(Math.max(typed.length, name.length) / 3)));
    if (distance > limit) continue;
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best?.name;
}

/** Levenshtein distance (insert, delete, substitute), with a swap of two neighbours as one edit. */
export function editDistance(a: string, b: string): number {
  // Flags and command names are short; a bounded input keeps this cheap on any argv.
  if (a.length > 100 || b.length > 100) return Math.max(a.length, b.length);
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      }
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

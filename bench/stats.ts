/** Small helpers for the benchmark's figures. */

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / (values.length || 1);
export const median = (values: number[]) => percentile(values, 50);
export const round = (value: number, digits = 1) => Number(value.toFixed(digits));

export interface Row {
  section: string;
  metric: string;
  value: number | string;
  unit: string;
  target?: string;
  ok?: boolean;
  /** What held a missed target back, when the bench knows it. */
  why?: string;
  /** Only on the performance page, not in README's table (which has a size budget). */
  pageOnly?: boolean;
}

export const max = (values: number[]) =>
  values.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);

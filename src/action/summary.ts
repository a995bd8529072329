import * as core from '@actions/core';

export type SummaryRow = [label: string, value: string];

/** Writes a small table to the job summary; a runner without one just skips it. */
export async function writeSummary(
  heading: string,
  rows: SummaryRow[],
  note?: string,
): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) return;
  const table = [
    [
      { data: 'what', header: true },
      { data: 'value', header: true },
    ],
    ...rows.map(([label, value]) => [label, value]),
  ];
  const summary = core.summary.addHeading(heading, 3).addTable(table);
  if (note) summary.addRaw(`\n\n${note}\n`);
  await summary.write();
}

/** Epoch milliseconds as an ISO time, with the raw value kept for tooling. */
export function formatEpoch(ms: number): string {
  return Number.isFinite(ms) ? `${new Date(ms).toISOString()} (${ms})` : 'unknown';
}

/** Renders rows as an aligned plain-text table (what an operator reads in a terminal). */
export function formatTable<T extends object>(rows: readonly T[], columns?: string[]): string {
  if (rows.length === 0) return '(none)';
  const cols = columns ?? Object.keys(rows[0]!);
  const text = (v: unknown) => (v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const cells = rows.map((row) => cols.map((c) => text((row as Record<string, unknown>)[c])));
  const widths = cols.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(cols.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n');
}

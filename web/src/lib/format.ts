/** Timestamps as the CLI prints them: UTC, to the second, without the T and the Z noise. */
export function formatTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** Labels of a prompt ({label: version}) sorted with production first, then by name. */
export function sortedLabels(labels: Record<string, number>): Array<[string, number]> {
  return Object.entries(labels).sort(([a], [b]) => (a === 'production' ? -1 : b === 'production' ? 1 : a.localeCompare(b)));
}

/** Case-insensitive match of a search text against any of the given fields. */
export function matches(search: string, ...fields: Array<string | null | undefined>): boolean {
  const needle = search.trim().toLowerCase();
  return needle === '' || fields.some((f) => f?.toLowerCase().includes(needle));
}

/**
 * A number's decimal digits without exponent notation: 1.5e-7 → "0.00000015", 2e21 → "2000000000000000000000".
 * The digits are JavaScript's shortest round-trip ones, so nothing is rounded away.
 */
export function plainDecimal(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const text = String(n);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (m === null) return text;
  const [, sign, lead, rest = '', exp] = m;
  const digits = `${lead}${rest}`;
  const point = 1 + Number(exp); // where the decimal point goes, counted from the digits' start
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * Dollars for people: exact digits by default; with `significant`, rounded to that many significant
 * digits (trailing zeros dropped). Never exponent notation, and a nonzero cost never shows as $0.
 */
export function formatCost(usd: number | null | undefined, significant?: number): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '–';
  if (usd === 0) return '$0';
  const rounded = significant === undefined ? usd : Number(usd.toPrecision(significant));
  const text = plainDecimal(Math.abs(rounded));
  return `${usd < 0 ? '-' : ''}$${text}`;
}

/** "from prompts/x.prompt.yaml @ abc1234 by Ada": where a version was pushed from (a commit shortened as Git does). */
export function describeSource(source: { path: string | null; commit: string | null; author: string | null }): string {
  const commit = source.commit === null ? '' : ` @ ${source.commit.slice(0, 7)}`;
  const author = source.author === null ? '' : ` by ${source.author}`;
  return `from ${source.path ?? 'a file'}${commit}${author}`;
}

import { formatCost } from './runView.js';

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

/** Dollars as the API gives them (the CLI prints the same digits), never rounded to zero, never 2e-7. */
export function formatUsd(usd: number | null | undefined): string {
  return formatCost(usd);
}

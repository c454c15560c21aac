import type { Invalid } from '../lib/errors.js';
import { formatTable } from './table.js';

type OutputFormat = 'table' | 'json';
let format: OutputFormat = 'table';

/** The global `--output` option (main.ts): tables for a person, JSON for a script. */
export function setOutput(chosen: OutputFormat): void {
  format = chosen;
}

export function jsonOutput(): boolean {
  return format === 'json';
}

/** Rows as the table the CLI has always printed, or with `--output json` as the API's objects. */
export function printRows<T extends object>(rows: readonly T[], columns: string[]): void {
  console.log(format === 'json' ? JSON.stringify(rows, null, 2) : formatTable(rows, columns));
}

/** A rule's problems as `body.field: reason` lines, as the CLI prints them. */
export const describeInvalid = (error: Invalid): string => error.issues.map((i) => `${[i.part, ...i.path].join('.')}: ${i.reason}`).join('\n');

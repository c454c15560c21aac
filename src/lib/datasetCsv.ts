/**
 * The CSV columns of dataset items, shared by the CLI's file import (src/cli/datasets/itemFiles.ts)
 * and the console's (web/src/lib/csvItems.ts), so a file reads the same in both: a header row
 * naming `inputs.<name>`, `expected` (text), `expected_json` (a JSON value) and `metadata.<name>`;
 * every cell is text, and an empty expected cell means none. Pure: no parser, no I/O.
 */

import { unescapeFormula } from './csvFormulas.js';
import { outOfRangeNumber } from './jsonNumbers.js';

/** What the API takes of an object's names (datasets.schemas.ts): checked so a file is refused before anything is sent. */
export const MAX_NAMES = 256;
export const MAX_NAME_LENGTH = 256;
export const NUL_PROBLEM = 'holds the NUL character (U+0000), which the API refuses';

export interface CsvItem {
  inputs: Record<string, unknown>;
  expected?: unknown;
  metadata: Record<string, unknown>;
}

/** What a CSV header names: each column's place in an item. */
export type Column = { to: 'inputs' | 'metadata'; name: string } | { to: 'expected' | 'expected_json' };

export function columnsOf(header: readonly string[]): Column[] | string {
  const columns: Column[] = [];
  const seen = new Set<string>();
  for (const raw of header) {
    const name = raw.trim();
    if (name.includes('\u0000')) return `a column name ${NUL_PROBLEM}`;
    if (seen.has(name)) return `column ${JSON.stringify(name)} appears twice`;
    seen.add(name);
    const m = /^(inputs|metadata)\.(.+)$/.exec(name);
    if (m !== null && m[2]!.length > MAX_NAME_LENGTH) return `column ${JSON.stringify(name)}: a name may have at most ${MAX_NAME_LENGTH} characters`;
    if (m !== null) columns.push({ to: m[1] as 'inputs' | 'metadata', name: m[2]! });
    else if (name === 'expected' || name === 'expected_json') columns.push({ to: name });
    else return `column ${JSON.stringify(name)}: columns are inputs.<name>, expected, expected_json and metadata.<name>`;
  }
  if (seen.has('expected') && seen.has('expected_json')) return 'give expected or expected_json, not both';
  if (!columns.some((c) => c.to === 'inputs')) return 'no inputs.<name> column';
  for (const to of ['inputs', 'metadata'] as const) {
    const n = columns.filter((c) => c.to === to).length;
    if (n > MAX_NAMES) return `${n} ${to}.<name> columns, at most ${MAX_NAMES}`;
  }
  return columns;
}

/**
 * One CSV record as an item: cells are text; an empty expected cell means none. A cell the export
 * made inert for spreadsheets (`'=…`: src/lib/csvFormulas.ts) reads back as the text it was.
 */
export function csvItem(columns: readonly Column[], record: readonly string[]): CsvItem | string {
  if (record.length !== columns.length) return `${record.length} cells, the header has ${columns.length}`;
  const item: CsvItem = { inputs: {}, metadata: {} };
  for (const [i, column] of columns.entries()) {
    const cell = unescapeFormula(record[i]!);
    if (cell.includes('\u0000')) return `a cell ${NUL_PROBLEM}`;
    if (column.to === 'inputs' || column.to === 'metadata') item[column.to][column.name] = cell;
    else if (cell === '') continue;
    else if (column.to === 'expected') item.expected = cell;
    else {
      try {
        item.expected = JSON.parse(cell) as unknown;
      } catch (error) {
        return `expected_json is not JSON: ${(error as Error).message}`;
      }
      // Parsed as Infinity, it would be sent (and stored) as null.
      const outOfRange = outOfRangeNumber(cell);
      if (outOfRange !== null) return `expected_json: ${outOfRange.problem}`;
    }
  }
  return item;
}

import type { ImportItem } from './datasets.js';

/**
 * Dataset items from CSV text, with the columns of the CLI's CSV import (src/cli/datasets/itemFiles.ts,
 * docs/evaluations.md "Files"): a header row naming `inputs.<name>`, `expected` (text),
 * `expected_json` (a JSON value) and `metadata.<name>` columns; every cell is text, and an empty
 * expected cell means none. Every problem is "line N: why"; any problem means nothing is sent.
 * The parser is csv-parse's browser build (the CLI's parser), loaded only when CSV is imported.
 */
type Column = { to: 'inputs' | 'metadata'; name: string } | { to: 'expected' | 'expected_json' };

const MAX_NAMES = 256;
const MAX_NAME_LENGTH = 256;
/** The problems reported before giving up: enough to fix a batch of them at once. */
const MAX_PROBLEMS = 20;
const NUL_PROBLEM = 'holds the NUL character (U+0000), which the API refuses';

function columnsOf(header: readonly string[]): Column[] | string {
  const columns: Column[] = [];
  const seen = new Set<string>();
  for (const raw of header) {
    const name = raw.trim();
    if (name.includes('\u0000')) return `a column name ${NUL_PROBLEM}`;
    if (seen.has(name)) return `column ${JSON.stringify(name)} appears twice`;
    seen.add(name);
    const m = /^(inputs|metadata)\.(.+)$/u.exec(name);
    if (m?.[2] !== undefined && m[2].length > MAX_NAME_LENGTH) return `column ${JSON.stringify(name)}: a name may have at most ${MAX_NAME_LENGTH} characters`;
    if (m?.[2] !== undefined) columns.push({ to: m[1] as 'inputs' | 'metadata', name: m[2] });
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

function itemOf(columns: readonly Column[], record: readonly string[]): ImportItem | string {
  if (record.length !== columns.length) return `${record.length} cells, the header has ${columns.length}`;
  const inputs: Record<string, unknown> = {};
  const metadata: Record<string, unknown> = {};
  let expected: unknown;
  for (const [i, column] of columns.entries()) {
    const cell = record[i] ?? '';
    if (cell.includes('\u0000')) return `a cell ${NUL_PROBLEM}`;
    if (column.to === 'inputs') inputs[column.name] = cell;
    else if (column.to === 'metadata') metadata[column.name] = cell;
    else if (cell === '') continue;
    else if (column.to === 'expected') expected = cell;
    else {
      try {
        expected = JSON.parse(cell) as unknown;
      } catch (error) {
        return `expected_json is not JSON: ${(error as Error).message}`;
      }
    }
  }
  return { inputs, ...(expected === undefined ? {} : { expected }), metadata };
}

/** Every item of the CSV text, or the problems by line (at most MAX_PROBLEMS); nothing when the text holds no record. */
export async function parseCsv(text: string): Promise<{ items: ImportItem[]; errors: string[] }> {
  const { parse } = await import('csv-parse/browser/esm/sync');
  let records: { record: string[]; info: { lines: number } }[];
  try {
    // relax_column_count: a short or long row is reported with its line, not thrown as the text's error.
    records = parse(text, { bom: true, info: true, relax_column_count: true, skip_empty_lines: true }) as unknown as typeof records;
  } catch (error) {
    // The parser's own errors (an unclosed quote) carry the line where it stopped.
    const line = (error as { lines?: number }).lines;
    return { items: [], errors: [`line ${line ?? '?'}: ${(error as Error).message.replace(/^Invalid [^:]*: /u, '')}`] };
  }
  const [header, ...rows] = records;
  if (header === undefined) return { items: [], errors: [] };
  const columns = columnsOf(header.record);
  if (typeof columns === 'string') return { items: [], errors: [`line ${header.info.lines}: ${columns}`] };
  const items: ImportItem[] = [];
  const errors: string[] = [];
  for (const { record, info } of rows) {
    const item = itemOf(columns, record);
    if (typeof item === 'string') errors.push(`line ${info.lines}: ${item}`);
    else items.push(item);
    if (errors.length >= MAX_PROBLEMS) break;
  }
  if (errors.length === 0 && items.length === 0) errors.push('line 2: no items under the header row');
  return { items, errors };
}

import { columnsOf, csvItem } from '../../../src/lib/datasetCsv.js';
import type { ImportItem } from './datasets.js';

/**
 * Dataset items from CSV text, with the columns of the CLI's CSV import (the same code:
 * src/lib/datasetCsv.ts; docs/evaluations.md "Files"). Every problem is "line N: why"; any problem
 * means nothing is sent.
 * The parser is csv-parse's browser build (the CLI's parser), loaded only when CSV is imported.
 */
/** The problems reported before giving up: enough to fix a batch of them at once. */
const MAX_PROBLEMS = 20;

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
    const item = csvItem(columns, record);
    if (typeof item === 'string') errors.push(`line ${info.lines}: ${item}`);
    else items.push(item);
    if (errors.length >= MAX_PROBLEMS) break;
  }
  if (errors.length === 0 && items.length === 0) errors.push('line 2: no items under the header row');
  return { items, errors };
}

import fs from 'node:fs';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify/sync';
import { escapeFormula } from '../../lib/csvFormulas.js';
import { type Column, columnsOf, csvItem, MAX_NAME_LENGTH, MAX_NAMES, NUL_PROBLEM } from '../../lib/datasetCsv.js';
import { outOfRangeNumber } from '../../lib/jsonNumbers.js';
import { NOT_UTF8, utf8Lines } from '../textFiles.js';

/**
 * Dataset items in files (docs/evaluations.md, "Files"): JSONL, one item per line
 * (`{"inputs": {…}, "expected": …, "metadata": {…}}`), or CSV with a header row naming
 * `inputs.<name>`, `expected` (text), `expected_json` (a JSON value) and `metadata.<name>` columns.
 * Files are read as streams of UTF-8 (a byte-order mark skipped, other encodings refused), line by
 * line or record by record, and every problem is reported as `file:line: message`; a command
 * stores nothing unless the whole file reads cleanly.
 */
export type ItemFormat = 'csv' | 'jsonl';

export interface FileItem {
  inputs: Record<string, unknown>;
  expected?: unknown;
  metadata: Record<string, unknown>;
}

/** A file's items and the line each starts on (what the API's refusal of item i is reported at). */
export interface ReadItems {
  items: FileItem[];
  lines: number[];
}

function namesProblem(field: 'inputs' | 'metadata', value: Record<string, unknown>): string | null {
  const names = Object.keys(value);
  if (names.length > MAX_NAMES) return `"${field}" has ${names.length} names, at most ${MAX_NAMES}`;
  const long = names.find((n) => n.length > MAX_NAME_LENGTH);
  return long === undefined ? null : `"${field}" has a name longer than ${MAX_NAME_LENGTH} characters`;
}

/** The problems reported before giving up on a file: enough to fix a batch of them at once. */
const MAX_PROBLEMS = 20;

export class ItemFileError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ItemFileError';
  }
}

/** The format a file name says (`.csv`, `.jsonl` or `.ndjson`), or undefined. */
export function formatOf(file: string): ItemFormat | undefined {
  if (/\.csv$/i.test(file)) return 'csv';
  if (/\.(jsonl|ndjson)$/i.test(file)) return 'jsonl';
  return undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const JSONL_KEYS = new Set(['inputs', 'expected', 'metadata']);

/** Whether a JSON value holds a NUL in any string or key (the API refuses those, on both backends). */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (isObject(value)) return Object.entries(value).some(([k, v]) => k.includes('\u0000') || holdsNul(v));
  return false;
}

/** One JSONL line as an item, or why it is not one. */
function jsonlItem(line: string): FileItem | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  if (!isObject(value)) return 'each line must be a JSON object';
  // JSON.parse read such a number as Infinity, which would be sent (and stored) as null.
  const outOfRange = outOfRangeNumber(line);
  if (outOfRange !== null) return outOfRange.problem;
  const unknown = Object.keys(value).filter((k) => !JSONL_KEYS.has(k));
  if (unknown.length > 0) return `unknown field(s) ${unknown.map((k) => JSON.stringify(k)).join(', ')}: an item has inputs, expected and metadata`;
  if (!isObject(value.inputs)) return '"inputs" must be an object of the prompt\'s variables';
  if (value.metadata !== undefined && !isObject(value.metadata)) return '"metadata" must be an object';
  const names = namesProblem('inputs', value.inputs) ?? (value.metadata === undefined ? null : namesProblem('metadata', value.metadata));
  if (names !== null) return names;
  if (holdsNul(value)) return `the item ${NUL_PROBLEM}`;
  return {
    inputs: value.inputs,
    ...(value.expected === undefined || value.expected === null ? {} : { expected: value.expected }),
    metadata: value.metadata ?? {},
  };
}

async function readJsonl(file: string, problems: string[], read: ReadItems): Promise<void> {
  // A line ends at LF, CRLF or a lone CR (JSON text holds no raw CR), counted as readline counts them.
  let n = 0;
  for await (const { text } of utf8Lines(file)) {
    if (text === null) {
      n += 1;
      problems.push(`${file}:${n}: ${NOT_UTF8}`);
    } else {
      const lines = text.split(/\r\n|\r|\n/);
      if (lines.at(-1) === '') lines.pop(); // what followed the line's end: nothing
      for (const line of lines) {
        n += 1;
        if (line.trim() === '') continue;
        const item = jsonlItem(line);
        if (typeof item === 'string') problems.push(`${file}:${n}: ${item}`);
        else {
          read.items.push(item);
          read.lines.push(n);
        }
      }
    }
    if (problems.length >= MAX_PROBLEMS) break;
  }
}

async function readCsv(file: string, problems: string[], read: ReadItems): Promise<void> {
  // The text stops at the first line that is not UTF-8: what comes before it is still checked.
  let notUtf8: number | undefined;
  async function* text() {
    for await (const { line, text } of utf8Lines(file)) {
      if (text === null) {
        notUtf8 = line;
        return;
      }
      yield text;
    }
  }
  // relax_column_count: a short or long row is reported with its line, not thrown as the file's error.
  const parser = Readable.from(text(), { objectMode: false }).pipe(parse({ bom: true, info: true, relax_column_count: true, skip_empty_lines: true }));
  let columns: Column[] | undefined;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (columns === undefined) {
        const found = columnsOf(record);
        if (typeof found === 'string') {
          problems.push(`${file}:${info.lines}: ${found}`);
          break;
        }
        columns = found;
        continue;
      }
      const item = csvItem(columns, record);
      if (typeof item === 'string') problems.push(`${file}:${info.lines}: ${item}`);
      else {
        read.items.push(item);
        read.lines.push(info.lines);
      }
      if (problems.length >= MAX_PROBLEMS) break;
    }
  } catch (error) {
    // The parser's own errors (an unclosed quote) carry the line where it stopped; one that only
    // says the text ended where a line could not be read is not another problem.
    const line = (error as { lines?: number }).lines;
    if (notUtf8 === undefined) problems.push(`${file}:${line ?? '?'}: ${(error as Error).message.replace(/^Invalid [^:]*: /, '')}`);
  } finally {
    parser.destroy();
  }
  if (notUtf8 !== undefined && problems.length < MAX_PROBLEMS) problems.push(`${file}:${notUtf8}: ${NOT_UTF8}`);
  if (columns === undefined && problems.length === 0) problems.push(`${file}:1: no header row`);
}

/** Every item of the file with its line, or an ItemFileError listing the problems (at most MAX_PROBLEMS) by line. */
export async function readItemFile(file: string, format: ItemFormat): Promise<ReadItems> {
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) throw new ItemFileError([`${file}: no such file`]);
  const problems: string[] = [];
  const read: ReadItems = { items: [], lines: [] };
  await (format === 'csv' ? readCsv(file, problems, read) : readJsonl(file, problems, read));
  if (problems.length === 0 && read.items.length === 0) problems.push(`${file}: no items`);
  if (problems.length > 0) throw new ItemFileError(problems);
  return read;
}

/** An item as a JSONL line (what import reads back). */
export function jsonlLine(item: FileItem): string {
  return `${JSON.stringify({ inputs: item.inputs, ...(item.expected === undefined || item.expected === null ? {} : { expected: item.expected }), metadata: item.metadata })}\n`;
}

/** The CSV columns of these names: inputs first, then the expected value, then metadata, each sorted. */
export function csvHeader(inputNames: Iterable<string>, metadataNames: Iterable<string>, jsonExpected: boolean): string[] {
  return [
    ...[...inputNames].sort().map((n) => `inputs.${n}`),
    jsonExpected ? 'expected_json' : 'expected',
    ...[...metadataNames].sort().map((n) => `metadata.${n}`),
  ];
}

// Records end in CRLF (RFC 4180); a cell holding a line break of either kind is quoted, as a comma or a quote is.
const CSV_OPTIONS = { record_delimiter: '\r\n', quoted_match: /[\r\n]/ } as const;

/** CSV holds text: a value that is not a string is written as its JSON. */
const cellOf = (value: unknown): string => (value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/** One item as a CSV row under `header` (RFC 4180 quoting, CRLF; text a spreadsheet would run as a formula made inert). */
export function csvRow(header: readonly string[], item: FileItem): string {
  const cells = header.map((column) => {
    if (column === 'expected') return cellOf(item.expected);
    if (column === 'expected_json') return item.expected === undefined || item.expected === null ? '' : JSON.stringify(item.expected);
    const [to, ...rest] = column.split('.');
    return cellOf((to === 'inputs' ? item.inputs : item.metadata)[rest.join('.')]);
  });
  return stringify([cells.map(escapeFormula)], CSV_OPTIONS);
}

export const csvHeaderLine = (header: readonly string[]): string => stringify([header], CSV_OPTIONS);

import type { DatasetVersionView, ItemView } from '../../modules/datasets/datasets.schemas.js';
import { ApiError, type ApiClient } from '../api/client.js';
import { csvHeader, csvHeaderLine, csvRow, ItemFileError, jsonlLine, readItemFile, type FileItem, type ItemFormat } from './itemFiles.js';

/** Items per request, and the JSON a request may reach: under the server's default 1 MiB body limit. */
const BATCH_ITEMS = 1000;
const BATCH_CHARS = 768 * 1024;

export const datasetPath = (id: string) => `/datasets/${encodeURIComponent(id)}`;

/** Items cut into requests of at most BATCH_ITEMS and about BATCH_CHARS of JSON each, with the index of each batch's first item. */
function batches(items: readonly FileItem[]): Array<{ start: number; items: FileItem[] }> {
  const out: Array<{ start: number; items: FileItem[] }> = [];
  let current: FileItem[] = [];
  let start = 0;
  let chars = 0;
  for (const [i, item] of items.entries()) {
    const size = JSON.stringify(item).length + 1;
    if (current.length > 0 && (current.length >= BATCH_ITEMS || chars + size > BATCH_CHARS)) {
      out.push({ start, items: current });
      current = [];
      start = i;
      chars = 0;
    }
    current.push(item);
    chars += size;
  }
  if (current.length > 0) out.push({ start, items: current });
  return out;
}

/**
 * The API's 422 for a batch, each item it names reported at its line of the file
 * (`["body", "items", 3, "inputs", "q"]` → `file:LINE: inputs.q: message`), and what was already
 * stored when it was not the first batch.
 */
export function refusedAt(error: ApiError, file: string, lines: readonly number[], start: number, made: readonly DatasetVersionView[]): ItemFileError {
  const detail = Array.isArray(error.detail) ? (error.detail as Array<{ loc?: unknown[]; msg?: string }>) : [];
  const problems = detail.map(({ loc = [], msg = '' }) => {
    const [part, field, index, ...rest] = loc;
    if (part !== 'body' || field !== 'items' || typeof index !== 'number') return `${file}: ${loc.join('.')}: ${msg}`;
    return `${file}:${lines[start + index] ?? '?'}: ${rest.length === 0 ? '' : `${rest.join('.')}: `}${msg}`;
  });
  if (problems.length === 0) problems.push(`${file}: ${error.message}`);
  if (made.length > 0) problems.push(`(the items before line ${lines[start]} were stored as version ${made.at(-1)!.version})`);
  return new ItemFileError(problems);
}

/**
 * Reads the whole file first (a stream, every problem reported as file:line), and sends nothing
 * unless it all reads cleanly; then the items go in batches, each request a new version (all or
 * nothing). The first batch replaces the items with `replace`; the rest append, so the last
 * version holds the file's items after (or instead of) what the dataset had. The versions made.
 */
export async function importItems(api: ApiClient, datasetId: string, file: string, format: ItemFormat, replace: boolean): Promise<DatasetVersionView[]> {
  const { items, lines } = await readItemFile(file, format);
  const made: DatasetVersionView[] = [];
  for (const [i, batch] of batches(items).entries()) {
    const method = i === 0 && replace ? 'PUT' : 'POST';
    try {
      made.push(await api.request<DatasetVersionView>(method, `${datasetPath(datasetId)}/items`, { body: { items: batch.items } }));
    } catch (error) {
      if (error instanceof ApiError && error.status === 422) throw refusedAt(error, file, lines, batch.start, made);
      throw error;
    }
  }
  return made;
}

/** Every item of a version, a page at a time: memory holds one page, whatever the dataset's size. */
async function* pages(api: ApiClient, datasetId: string, version: number | undefined): AsyncGenerator<{ version: number; data: ItemView[] }> {
  let cursor: string | undefined;
  do {
    const page = await api.request<{ version: number; data: ItemView[]; next_cursor: string | null }>('GET', `${datasetPath(datasetId)}/items`, {
      query: { version, cursor, limit: 1000 },
    });
    yield page;
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

const fileItem = (item: ItemView): FileItem => ({ inputs: item.inputs, expected: item.expected, metadata: item.metadata });

/**
 * Writes a version's items as `import` reads them, page by page. CSV needs its header first, so it
 * reads the version twice: once for the column names, once for the rows. The version written.
 */
export async function exportItems(
  api: ApiClient,
  datasetId: string,
  version: number | undefined,
  format: ItemFormat,
  write: (chunk: string) => Promise<void>,
): Promise<number> {
  // The version is fixed by the first page, so both passes (and every page) read the same items.
  let fixed = version;
  if (format === 'jsonl') {
    for await (const page of pages(api, datasetId, fixed)) {
      fixed = page.version;
      for (const item of page.data) await write(jsonlLine(fileItem(item)));
    }
    return fixed ?? 0;
  }
  const inputs = new Set<string>();
  const metadata = new Set<string>();
  let jsonExpected = false;
  for await (const page of pages(api, datasetId, fixed)) {
    fixed = page.version;
    for (const item of page.data) {
      for (const name of Object.keys(item.inputs)) inputs.add(name);
      for (const name of Object.keys(item.metadata)) metadata.add(name);
      if (item.expected !== null && typeof item.expected !== 'string') jsonExpected = true;
    }
  }
  const header = csvHeader(inputs, metadata, jsonExpected);
  await write(csvHeaderLine(header));
  if (fixed === 0) return 0;
  for await (const page of pages(api, datasetId, fixed)) for (const item of page.data) await write(csvRow(header, fileItem(item)));
  return fixed ?? 0;
}

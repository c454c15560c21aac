import type { DatasetVersionView, ItemView } from '../../modules/datasets/datasets.schemas.js';
import { ApiError, type ApiClient } from '../api/client.js';
import { csvHeader, csvHeaderLine, csvRow, ItemFileError, jsonlLine, readItemFile, type FileItem, type ItemFormat } from './itemFiles.js';

/** Items per request, and the JSON a request may reach: under the server's default 1 MiB body limit. */
const BATCH_ITEMS = 1000;
const BATCH_CHARS = 768 * 1024;

export const datasetPath = (id: string) => `/datasets/${encodeURIComponent(id)}`;

/** Items cut into requests of at most `maxItems` and about `maxChars` of JSON each, with the index of each batch's first item. */
function batches(items: readonly FileItem[], maxItems: number, maxChars: number): Array<{ start: number; items: FileItem[] }> {
  const out: Array<{ start: number; items: FileItem[] }> = [];
  let current: FileItem[] = [];
  let start = 0;
  let chars = 0;
  for (const [i, item] of items.entries()) {
    const size = JSON.stringify(item).length + 1;
    if (current.length > 0 && (current.length >= maxItems || chars + size > maxChars)) {
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
 * (`["body", "items", 3, "inputs", "q"]` → `file:LINE: inputs.q: message`).
 */
export function refusedAt(error: ApiError, file: string, lines: readonly number[], start: number): ItemFileError {
  const detail = Array.isArray(error.detail) ? (error.detail as Array<{ loc?: unknown[]; msg?: string }>) : [];
  const problems = detail.map(({ loc = [], msg = '' }) => {
    const [part, field, index, ...rest] = loc;
    if (part !== 'body' || field !== 'items' || typeof index !== 'number') return `${file}: ${loc.join('.')}: ${msg}`;
    return `${file}:${lines[start + index] ?? '?'}: ${rest.length === 0 ? '' : `${rest.join('.')}: `}${msg}`;
  });
  if (problems.length === 0) problems.push(`${file}: ${error.message}`);
  return new ItemFileError(problems);
}

/**
 * Reads the whole file first (a stream, every problem reported as file:line), and sends nothing
 * unless it all reads cleanly. A file of one request's worth is one POST (or PUT, with `replace`)
 * of /datasets/{id}/items; a larger one goes through an upload: its batches staged, then committed
 * as ONE version, so whatever its size the file is one version, and nothing is stored (the upload is
 * discarded) if the API refuses any batch. The version made.
 */
export async function importItems(
  api: ApiClient,
  datasetId: string,
  file: string,
  format: ItemFormat,
  replace: boolean,
  limits: { items?: number; chars?: number } = {},
): Promise<DatasetVersionView[]> {
  const { items, lines } = await readItemFile(file, format);
  const parts = batches(items, limits.items ?? BATCH_ITEMS, limits.chars ?? BATCH_CHARS);
  if (parts.length === 1) {
    try {
      return [await api.request<DatasetVersionView>(replace ? 'PUT' : 'POST', `${datasetPath(datasetId)}/items`, { body: { items: parts[0]!.items } })];
    } catch (error) {
      if (error instanceof ApiError && error.status === 422) throw refusedAt(error, file, lines, 0);
      throw error;
    }
  }
  const upload = await api.request<{ upload_id: string }>('POST', `${datasetPath(datasetId)}/uploads`);
  const uploadPath = `${datasetPath(datasetId)}/uploads/${encodeURIComponent(upload.upload_id)}`;
  try {
    for (const batch of parts) {
      try {
        await api.request('POST', `${uploadPath}/items`, { body: { items: batch.items } });
      } catch (error) {
        if (error instanceof ApiError && error.status === 422) throw refusedAt(error, file, lines, batch.start);
        throw error;
      }
    }
    return [await api.request<DatasetVersionView>('POST', `${uploadPath}/commit`, { body: { replace } })];
  } catch (error) {
    // Nothing was committed: the staged items go now rather than in 24 hours (a failure here changes nothing).
    await api.request('DELETE', uploadPath).catch(() => undefined);
    throw error;
  }
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

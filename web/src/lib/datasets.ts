/** What the console reads of datasets and evaluators (docs/evaluations.md). */
export interface Dataset {
  dataset_id: string;
  description: string | null;
  latest_version: number;
  item_count: number;
  created_at: string;
  archived_at: string | null;
}

export interface DatasetItem {
  item_id: string;
  inputs: Record<string, unknown>;
  expected: unknown;
  metadata: Record<string, unknown> | null;
  source_run_id: string | null;
  added_in: number;
}

export interface Evaluator {
  evaluator_id: string;
  kind: string;
  description: string | null;
  latest_version: { version: number; scale: string; settings: Record<string, unknown>; created_at: string };
  created_at: string;
  archived_at: string | null;
}

export interface ImportItem {
  inputs: Record<string, unknown>;
  expected?: unknown;
  metadata?: Record<string, unknown>;
}

const FIELDS = new Set(['inputs', 'expected', 'metadata']);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Items from JSONL text, one `{"inputs": {…}, "expected": …, "metadata": {…}}` a line, as the CLI
 * reads a .jsonl file: blank lines are skipped; every problem is "line N: why", and any problem
 * means nothing is sent.
 */
export function parseJsonl(text: string): { items: ImportItem[]; errors: string[] } {
  const items: ImportItem[] = [];
  const errors: string[] = [];
  text.split(/\r?\n/u).forEach((line, i) => {
    if (line.trim() === '') return;
    const read = readItem(line);
    if (typeof read === 'string') errors.push(`line ${i + 1}: ${read}`);
    else items.push(read);
  });
  return { items, errors };
}

/** One line's item, or why it is not one. */
function readItem(line: string): ImportItem | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not JSON';
  }
  if (!isObject(value)) return 'an item is a JSON object';
  const unknown = Object.keys(value).filter((k) => !FIELDS.has(k));
  if (unknown.length > 0) return `unknown field(s) ${unknown.map((k) => JSON.stringify(k)).join(', ')}`;
  if (!isObject(value.inputs)) return `"inputs" must be an object of the prompt's variables`;
  if (value.metadata !== undefined && value.metadata !== null && !isObject(value.metadata)) return '"metadata" must be an object';
  return value as unknown as ImportItem;
}

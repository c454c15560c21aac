import type { ChatMessage } from './types.js';

/** POST /prompts/{id}/versions/{v}/render. */
export interface RenderAnswer {
  prompt_id: string;
  version: number;
  prompt_text: string;
  messages: ChatMessage[];
}

/** POST /prompts/{id}/versions/{v}/run (the fields of /run_prompt). */
export interface RunAnswer {
  run_id: string;
  output: string;
  model_used: string;
  latency_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  token_cost_usd: number;
  prompt_version: number;
  /** Extensions, present only with tools or a json response format (docs/tools-and-structured-output.md). */
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  output_valid?: boolean;
  output_error?: string;
}

/** One side of the playground: a version, and for a run, maybe another model than the version's. */
export interface PlaygroundColumn {
  name: 'A' | 'B';
  version: number;
  /** '' runs on the version's own model. */
  model: string;
}

export type ParsedInputs = { ok: true; inputs: Record<string, unknown> } | { ok: false; error: string };

/**
 * The "JSON inputs" text as the API's `inputs`: a JSON object whose values may be anything a
 * template reads (numbers, booleans, lists, nested objects). Blank is no inputs.
 */
export function parseJsonInputs(text: string): ParsedInputs {
  if (text.trim() === '') return { ok: true, inputs: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `The inputs are not valid JSON: ${(error as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: 'The inputs must be a JSON object, such as {"name": "Ada", "count": 3}' };
  }
  return { ok: true, inputs: value as Record<string, unknown> };
}

/** The form's text fields as inputs: every variable asked for, blank ones as empty strings. */
export function formInputs(variables: readonly string[], values: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(variables.map((v) => [v, values[v] ?? '']));
}

/** The variables of several versions, each once, in order of first appearance. */
export function unionOfVariables(lists: ReadonlyArray<readonly string[]>): string[] {
  return [...new Set(lists.flat())];
}

/** The request of one column: render (the inputs) or run (the inputs and the model override). */
export function columnRequest(promptId: string, column: PlaygroundColumn, action: 'render' | 'run', inputs: Record<string, unknown>) {
  const path = `/prompts/${encodeURIComponent(promptId)}/versions/${column.version}/${action}`;
  const model = column.model.trim();
  return { path, body: action === 'run' && model !== '' ? { inputs, model } : { inputs } };
}

/** The windows of the prompt page's numbers, kept in its URL as `?window=`. */
export const STATS_WINDOWS = { '24h': 1, '7d': 7, '30d': 30 } as const;
export type StatsWindow = keyof typeof STATS_WINDOWS;
const DEFAULT_STATS_WINDOW: StatsWindow = '7d';

export function statsWindowOf(search: string): StatsWindow {
  const value = new URLSearchParams(search).get('window');
  return value !== null && Object.hasOwn(STATS_WINDOWS, value) ? (value as StatsWindow) : DEFAULT_STATS_WINDOW;
}

/** GET /prompts/{id}/stats for the window ending now (this browser's clock). */
export function statsPath(promptId: string, window: StatsWindow, now: Date): string {
  const since = new Date(now.getTime() - STATS_WINDOWS[window] * 86_400_000).toISOString();
  const query = new URLSearchParams({ since, until: now.toISOString() });
  return `/prompts/${encodeURIComponent(promptId)}/stats?${query.toString()}`;
}

interface VersionStats {
  version: number;
  runs: number;
  errors: number;
  error_rate: number;
  latency_ms_p50: number | null;
  latency_ms_p95: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
}

export interface PromptStats {
  prompt_id: string;
  since: string;
  until: string;
  versions: VersionStats[];
}

import { chooseVariant } from './assign.js';
import type { BundleIndex, BundleLimits, PreparedVersion } from './bundle.js';
import { renderState, walk } from './render.js';
import { applyChecks } from './declarations.js';

/**
 * What the server's `POST /get_prompt` would answer, decided in-process from the bundle (docs/sdks.md,
 * "How local mode works"). Pure: the client does the I/O (the exposure report, the remote call).
 */

/** A /get_prompt request as it goes on the wire. */
export interface GetPromptRequest {
  prompt_id: string;
  inputs: Record<string, unknown>;
  external_user_id?: string | null;
}

export interface GetPromptBody {
  prompt_text: string;
  variant_assigned: string | null;
  experiment_id: string | null;
  prompt_version: number;
  messages?: Array<{ role: string; content: string }>;
}

/** One item of a FastAPI 422, as the server writes it. */
export interface ValidationItem {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** A user assigned by this call: the server must hear of it (POST /sdk/exposures). */
interface Exposure {
  experiment_id: string;
  variant: string;
}

export type Evaluation =
  | { kind: 'answer'; body: GetPromptBody; exposure: Exposure | null }
  | { kind: 'invalid'; detail: ValidationItem[]; exposure: Exposure | null }
  | { kind: 'remote'; reason: string };

const remote = (reason: string): Evaluation => ({ kind: 'remote', reason });

/** Nesting a local answer allows; the server refuses bodies deeper than 100 levels (far beyond any template). */
const MAX_DEPTH = 60;
/** The most one UTF-16 unit of a string can take in a JSON body (`\u001f`): below that, no need to measure. */
const MAX_BYTES_PER_CHAR = 6;
/**
 * The server shortens long errors (strings over 1 000 characters, echoes over 4 KiB, more than 100
 * items or 32 KiB). Rather than reproduce its cuts, an error is answered locally only well within
 * them, by this one rule that every client applies alike (docs/sdks.md); any other goes to the server.
 */
const LOCAL_ERROR = { items: 50, bytes: 8192, echoBytes: 2048, stringUnits: 500 } as const;

function hasLongString(value: unknown): boolean {
  if (typeof value === 'string') return value.length > LOCAL_ERROR.stringUnits;
  if (value === null || typeof value !== 'object') return false;
  for (const key in value) if (key.length > LOCAL_ERROR.stringUnits || hasLongString((value as Record<string, unknown>)[key])) return true;
  return false;
}

function localErrorFits(detail: readonly ValidationItem[]): boolean {
  return (
    detail.length <= LOCAL_ERROR.items &&
    Buffer.byteLength(JSON.stringify(detail), 'utf8') <= LOCAL_ERROR.bytes &&
    detail.every((item) => Buffer.byteLength(JSON.stringify(item.input) ?? '', 'utf8') <= LOCAL_ERROR.echoBytes) &&
    !hasLongString(detail)
  );
}

function invalid(detail: ValidationItem[], exposure: Exposure | null): Evaluation {
  return localErrorFits(detail) ? { kind: 'invalid', detail, exposure } : remote('an error the server would shorten');
}

/**
 * The inputs as the server would see them (JSON's view: no undefined, no NaN, no class instances),
 * or a reason to ask the server: a NUL character, deep nesting, a body over the limit, a value
 * JSON cannot carry. Flat string/number/boolean inputs, the common case, are used as they are.
 */
function wireInputs(inputs: Record<string, unknown>, limits: BundleLimits): Record<string, unknown> | string {
  let flat = true;
  let chars = 0;
  let entries = 0;
  for (const key in inputs) {
    if (!Object.hasOwn(inputs, key)) continue;
    entries++;
    const value = inputs[key];
    chars += key.length + 6;
    if (typeof value === 'string') chars += value.length;
    else if (typeof value === 'boolean' || value === null || (typeof value === 'number' && Number.isFinite(value))) chars += 24;
    else flat = false;
  }
  if (entries > limits.inputs_max_entries) return 'more inputs than the server accepts';
  let wire = inputs;
  if (!flat || Object.getPrototypeOf(inputs) !== Object.prototype) {
    try {
      const text = JSON.stringify(inputs);
      if (Buffer.byteLength(text, 'utf8') > limits.body_max_bytes) return 'inputs larger than the server accepts';
      wire = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return 'inputs that JSON cannot carry';
    }
  } else if (chars * MAX_BYTES_PER_CHAR > limits.body_max_bytes && Buffer.byteLength(JSON.stringify(inputs), 'utf8') > limits.body_max_bytes) {
    return 'inputs larger than the server accepts';
  }
  return hasNulOrDepth(wire, 1) ? 'a NUL character or deep nesting in the inputs' : wire;
}

function hasNulOrDepth(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  if (depth > MAX_DEPTH) return true;
  for (const key in value) {
    if (key.includes('\u0000') || hasNulOrDepth((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

function render(version: PreparedVersion, inputs: Record<string, unknown>, limits: BundleLimits) {
  const state = renderState(limits.render_max_bytes, limits.render_max_steps);
  const contents = version.templates.map((template) => {
    const out: [string] = [''];
    if (state.exceeded === null) walk(template.nodes, [inputs], state, out);
    return out[0];
  });
  return { state, contents };
}

function budgetItem(exceeded: 'bytes' | 'steps', limits: BundleLimits, inputs: unknown): ValidationItem {
  const reason =
    exceeded === 'bytes'
      ? `the rendered prompt would exceed ${limits.render_max_bytes} bytes (PROMPTLINE_RENDER_MAX_BYTES)`
      : `rendering would take more than ${limits.render_max_steps} steps (PROMPTLINE_RENDER_MAX_STEPS): the inputs repeat sections too often`;
  return { type: 'value_error', loc: ['body', 'inputs'], msg: `Value error, ${reason}`, input: inputs, ctx: { error: reason } };
}

export function evaluate(index: BundleIndex, request: GetPromptRequest): Evaluation {
  const { limits } = index;
  const prompt = index.prompts.get(request.prompt_id);
  if (prompt === undefined) return remote('the prompt is not in the bundle');
  const userId = request.external_user_id ?? null;
  // A lone surrogate, as a NUL, is a user id the server refuses (it could not store it as sent).
  if (userId !== null && (userId.length > limits.external_user_id_max_length || userId.includes('\u0000') || !userId.isWellFormed()))
    return remote('an external_user_id the server refuses');
  const inputs = wireInputs(request.inputs, limits);
  if (typeof inputs === 'string') return remote(inputs);

  let exposure: Exposure | null = null;
  let version = prompt.versions.get(prompt.servedVersion);
  const experiment = prompt.experiment;
  if (experiment !== null) {
    if (experiment.remoteOnly) return remote('the experiment can only be assigned by the server');
    if (userId === null) {
      // The body as sent: an explicit null user is echoed, an absent one is not.
      const body = 'external_user_id' in request ? { prompt_id: request.prompt_id, inputs, external_user_id: null } : { prompt_id: request.prompt_id, inputs };
      const reason = `experiment ${experiment.id} is running on prompt ${request.prompt_id}`;
      return {
        kind: 'invalid',
        exposure: null,
        detail: [{ type: 'missing', loc: ['body', 'external_user_id'], msg: 'Field required', input: body, ctx: { reason } }],
      };
    }
    const chosen = experiment.variants[chooseVariant(experiment.seed, userId, experiment.variants)];
    if (chosen !== undefined) {
      version = prompt.versions.get(chosen.version);
      exposure = { experiment_id: experiment.id, variant: chosen.key };
    }
  }
  if (version === undefined) return remote('a version missing from the bundle');
  if (version.remoteOnly) return remote('a typed variable this client cannot check');

  // Typed variables first, as the server checks them before it renders.
  let rendered = inputs;
  if (version.checks !== null) {
    const checked = applyChecks(version.checks, inputs);
    if (Array.isArray(checked)) return invalid(checked, exposure);
    rendered = checked;
  }
  const { state, contents } = render(version, rendered, limits);
  if (state.exceeded !== null) return invalid([budgetItem(state.exceeded, limits, inputs)], exposure);
  if (state.missing.size > 0) {
    return invalid(
      [...state.missing].map((name): ValidationItem => ({ type: 'missing', loc: ['body', 'inputs', name], msg: 'Field required', input: inputs })),
      exposure,
    );
  }
  const body: GetPromptBody = {
    prompt_text: version.kind === 'chat' ? version.templates.map((t, i) => `${t.role}: ${contents[i]}`).join('\n\n') : contents[0]!,
    variant_assigned: exposure?.variant ?? null,
    experiment_id: exposure?.experiment_id ?? null,
    prompt_version: version.version,
  };
  if (version.kind === 'chat') body.messages = version.templates.map((t, i) => ({ role: t.role, content: contents[i]! }));
  return { kind: 'answer', body, exposure };
}

/**
 * The shape of one row of the runtime contract tables (docs/runtime-contract.md) and small builders.
 *
 * Pure data: nothing here starts the app, so the tables can also be dumped and cross-checked
 * against pydantic/CPython outside vitest.
 *
 * Placeholders, replaced before sending and before comparing:
 * - `⟦NAME⟧` a fixture made in `beforeAll` (see contractRunner.ts): `⟦ADMIN⟧`, `⟦RUNTIME⟧`,
 *   `⟦READ⟧`, `⟦REVOKED⟧`, `⟦EXPIRED⟧`, `⟦OTHER⟧` (admin key of another project), `⟦RUN_SUPPORT⟧`,
 *   `⟦RUN_CHAT⟧`, `⟦RUN_EXP⟧` (run ids).
 * - `⟦=field⟧` in an expected body only: the value of that top-level field of the actual answer,
 *   taken only when it has the field's documented shape (ids, non-negative integers); anything
 *   else in the body is compared byte for byte.
 */
export type Transport = 'inject' | 'socket';

export interface ContractCase {
  /** Unique across all tables. */
  name: string;
  method: string;
  /** The request target exactly as sent (path and query). */
  path: string;
  /** Exactly the headers sent (no defaults are added except Host/Content-Length by the transport); an array sends the header once per value. */
  headers: Record<string, string | string[]>;
  /** Exact bytes sent; undefined sends no body at all. */
  rawBody?: string | Buffer;
  status: number;
  /** Exact expected body (UTF-8). */
  body: string;
  /** Expected content-type; undefined means `application/json` (or absent for a 307); null means absent. */
  contentType?: string | null;
  /** Expected `allow` header (checked on every 405; defaults to `POST`). */
  allow?: string;
  /** Expected `location` header (required for a 307). */
  location?: string;
  /** For a 200 from /track_outcome: what was stored for the outcome (proves the lax coercion, not just its acceptance). */
  stored?: { is_success?: number | null; numeric_value?: number | null; event_type?: string };
  /** Defaults to both. */
  transports?: Transport[];
  /**
   * A documented deviation (docs/runtime-contract.md, "Differences from FastAPI"): `body` is FastAPI's exact answer,
   * ours is JSON-equal to it (same status, same values) but not byte-equal, for the reason given.
   */
  deviation?: string;
  /**
   * A deliberate difference in a message (docs/runtime-contract.md, "Differences from FastAPI"):
   * `body` is ours, byte for byte, and this is FastAPI's exact answer, kept so the tables can still
   * be checked against FastAPI. The two may differ only in the `msg` of items, ours extending FastAPI's.
   */
  fastapi?: string;
}

const JSON_CT = 'application/json';
/** The two documented deviations from FastAPI (docs/runtime-contract.md, "Differences from FastAPI"). */
export const NUMBER_FORM = "number form: echoed numbers are JavaScript numbers, not Python's int/float repr";
export const KEY_ORDER = 'key order: JavaScript objects list integer-like keys first';
const ADMIN = '⟦ADMIN⟧';

/** Default headers of a runtime call: a valid admin key and a JSON body. */
export const H = (extra: Record<string, string | string[]> = {}): Record<string, string | string[]> => ({
  'x-api-key': ADMIN,
  'content-type': JSON_CT,
  ...extra,
});

/** Headers without the key. */
export const NOKEY = (contentType: string | null = JSON_CT): Record<string, string> => (contentType === null ? {} : { 'content-type': contentType });

type Opts = Partial<Omit<ContractCase, 'name' | 'method' | 'path' | 'status' | 'body' | 'rawBody'>>;

/** An expected answer: ours, and FastAPI's where it deliberately differs (see `ContractCase.fastapi`). */
type Expected = string | { body: string; fastapi: string };

/** A POST with the default headers unless `opts.headers` replaces them. */
export function post(name: string, path: string, rawBody: string | Buffer | undefined, status: number, body: Expected, opts: Opts = {}): ContractCase {
  return { name, method: 'POST', path, headers: opts.headers ?? H(), rawBody, status, ...(typeof body === 'string' ? { body } : body), ...opts };
}

/** `{"detail":[...items]}` from already-serialised items. */
export const detail = (...items: string[]): string => `{"detail":[${items.join(',')}]}`;
export const detailText = (text: string): string => `{"detail":${JSON.stringify(text)}}`;

export const MISSING_KEY = '{"type":"missing","loc":["header","x-api-key"],"msg":"Field required","input":null}';
export const MISSING_BODY = '{"type":"missing","loc":["body"],"msg":"Field required","input":null}';
export const PARSE_ERROR = '{"detail":"There was an error parsing the body"}';
export const INVALID_KEY = '{"detail":"Invalid API key"}';
export const TOO_LARGE = '{"detail":"Request body too large"}';

/** Item builders; `input` is the exact serialised JSON of the echoed value. */
export const missing = (field: string, input: string): string => `{"type":"missing","loc":["body","${field}"],"msg":"Field required","input":${input}}`;
export const stringType = (loc: string, input: string): string =>
  `{"type":"string_type","loc":[${loc}],"msg":"Input should be a valid string","input":${input}}`;
export const dictType = (loc: string, input: string): string =>
  `{"type":"dict_type","loc":[${loc}],"msg":"Input should be a valid dictionary","input":${input}}`;
export const modelType = (input: string): string =>
  `{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":${input}}`;
/**
 * A body sent under a content type that is not JSON is text, never an object: FastAPI answers
 * `modelType(text)`; Promptline's message also says what the body was sent as (`sentAs`, e.g.
 * `as text/plain`) and what to send. `before` are the items ahead of the body's.
 */
export const sentAsText = (sentAs: string, input: string, ...before: string[]): { body: string; fastapi: string } => ({
  body: detail(
    ...before,
    `{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from (the body was sent ${sentAs}; send JSON with the header content-type: application/json)","input":${input}}`,
  ),
  fastapi: detail(...before, modelType(input)),
});
export const jsonInvalid = (pos: number, msg: string): string =>
  detail(`{"type":"json_invalid","loc":["body",${pos}],"msg":"JSON decode error","input":{},"ctx":{"error":${JSON.stringify(msg)}}}`);
export const boolParsing = (input: string): string =>
  `{"type":"bool_parsing","loc":["body","is_success"],"msg":"Input should be a valid boolean, unable to interpret input","input":${input}}`;
export const boolType = (input: string): string => `{"type":"bool_type","loc":["body","is_success"],"msg":"Input should be a valid boolean","input":${input}}`;
export const floatParsing = (input: string): string =>
  `{"type":"float_parsing","loc":["body","numeric_value"],"msg":"Input should be a valid number, unable to parse string as a number","input":${input}}`;
export const floatType = (input: string): string =>
  `{"type":"float_type","loc":["body","numeric_value"],"msg":"Input should be a valid number","input":${input}}`;
export const finiteNumber = (input: string): string =>
  `{"type":"finite_number","loc":["body","numeric_value"],"msg":"Input should be a finite number","input":${input}}`;

/** A body field loc, e.g. `B('prompt_id')` → `"body","prompt_id"`. */
export const B = (...path: string[]): string => ['body', ...path].map((p) => JSON.stringify(p)).join(',');

/** 200 answers. */
export const GET_SUPPORT_OK = '{"prompt_text":"Hello Ann, about billing","variant_assigned":null,"experiment_id":null,"prompt_version":1}';
export const SUPPORT_BODY = '{"prompt_id":"support","inputs":{"name":"Ann","topic":"billing"}}';
export const trackOk = (experimentId: string | null = null, variant: string | null = null): string =>
  `{"outcome_id":"⟦=outcome_id⟧","status":"recorded","experiment_id":${JSON.stringify(experimentId)},"variant_assigned":${JSON.stringify(variant)}}`;
/**
 * RunPromptResponse then prompt_version. `token_cost_usd` is a pydantic `float`: FastAPI writes
 * the echo provider's zero cost as `0.0` (Python's float repr), not `0`.
 */
export const runOk = (output: string, opts: { variant?: string | null; experiment?: string | null; version?: number } = {}): string =>
  `{"run_id":"⟦=run_id⟧","output":${JSON.stringify(output)},"model_used":"echo/echo","latency_ms":⟦=latency_ms⟧,` +
  '"prompt_tokens":⟦=prompt_tokens⟧,"completion_tokens":⟦=completion_tokens⟧,"total_tokens":⟦=total_tokens⟧,"token_cost_usd":0.0,' +
  `"variant_assigned":${JSON.stringify(opts.variant ?? null)},"experiment_id":${JSON.stringify(opts.experiment ?? null)},"prompt_version":${opts.version ?? 1}}`;

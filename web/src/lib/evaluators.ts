/**
 * Evaluators as the console makes and edits them (docs/evaluations.md, "Evaluators";
 * src/modules/evaluators/evaluatorSettings.ts): each kind's settings as form text, and the request
 * body the form sends. The API checks the settings; the form only turns its text into JSON.
 */
export const EVALUATOR_KINDS = ['exact_match', 'contains', 'regex', 'json_schema', 'numeric', 'length', 'llm_judge'] as const;
export type EvaluatorKind = (typeof EVALUATOR_KINDS)[number];

export interface EvaluatorVersion {
  evaluator_id: string;
  version: number;
  kind: EvaluatorKind;
  scale: 'pass_fail' | '1-5';
  settings: Record<string, unknown>;
  created_at: string;
}

/** An evaluator attached to a prompt for online scoring (src/modules/onlineScoring/onlineScoring.schemas.ts). */
export interface OnlineEvaluator {
  prompt_id: string;
  evaluator_id: string;
  sample_rate: number;
  created_at: string;
}

/** A run's online score (GET /runs/{id}/scores). */
export interface RunScore {
  evaluator_id: string;
  evaluator_version: number;
  score: number | null;
  passed: boolean | null;
  error: string | null;
  created_at: string;
}

/** What each kind checks, in a line (shown under the kind picker). */
export const KIND_HELP: Record<EvaluatorKind, string> = {
  exact_match: "The output equals the item's expected text.",
  contains: "The output contains a text (the item's expected text when none is given).",
  regex: 'The output matches a regular expression.',
  json_schema: 'The output is JSON, valid against a JSON Schema when one is given.',
  numeric: "The output is a number within a tolerance of the item's expected number.",
  length: 'The output has between a fewest and a most characters.',
  llm_judge: 'A judge model, asked by a Promptline prompt, scores the output against a rubric.',
};

/** Every setting's field name, as the API's 422 names it. */
export const SETTING_FIELDS = [
  'case_sensitive',
  'normalize_whitespace',
  'value',
  'pattern',
  'flags',
  'schema',
  'tolerance',
  'relative',
  'min_chars',
  'max_chars',
  'prompt_id',
  'label',
  'version',
  'scale',
  'rubric',
] as const;

/** The form's state: text for what is typed, booleans for the ticks, `judge_version` as "", "label:<name>" or "version:<n>". */
export interface SettingsForm {
  case_sensitive: boolean;
  normalize_whitespace: boolean;
  relative: boolean;
  value: string;
  pattern: string;
  flags: string;
  schema: string;
  tolerance: string;
  min_chars: string;
  max_chars: string;
  prompt_id: string;
  judge_version: string;
  scale: 'pass_fail' | '1-5';
  rubric: string;
}

export const EMPTY_SETTINGS: SettingsForm = {
  case_sensitive: true,
  normalize_whitespace: false,
  relative: false,
  value: '',
  pattern: '',
  flags: '',
  schema: '',
  tolerance: '',
  min_chars: '',
  max_chars: '',
  prompt_id: '',
  judge_version: '',
  scale: 'pass_fail',
  rubric: '',
};

const text = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : String(v));

/** A stored version's settings as the form starts from them (a new version edits the latest). */
export function formOf(settings: Record<string, unknown>): SettingsForm {
  return {
    case_sensitive: settings.case_sensitive !== false,
    normalize_whitespace: settings.normalize_whitespace === true,
    relative: settings.relative === true,
    value: text(settings.value),
    pattern: text(settings.pattern),
    flags: text(settings.flags),
    schema: settings.schema === undefined ? '' : JSON.stringify(settings.schema, null, 2),
    tolerance: text(settings.tolerance),
    min_chars: text(settings.min_chars),
    max_chars: text(settings.max_chars),
    prompt_id: text(settings.prompt_id),
    judge_version: typeof settings.label === 'string' ? `label:${settings.label}` : typeof settings.version === 'number' ? `version:${settings.version}` : '',
    scale: settings.scale === '1-5' ? '1-5' : 'pass_fail',
    rubric: text(settings.rubric),
  };
}

/** A typed number as JSON: blank is left out; what is not a number is sent as typed, for the API to name. */
const numberOf = (typed: string): unknown => {
  const t = typed.trim();
  if (t === '') return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
};

/**
 * The settings of `kind` as a request body's fields (the keys left undefined are not sent), or,
 * when the JSON Schema field is not a JSON object, the problem to show under it (nothing is sent).
 */
export function settingsBody(kind: EvaluatorKind, f: SettingsForm): { body: Record<string, unknown> } | { field: 'schema'; problem: string } {
  const optional = (v: string) => (v === '' ? undefined : v);
  switch (kind) {
    case 'exact_match':
      return { body: { case_sensitive: f.case_sensitive, normalize_whitespace: f.normalize_whitespace } };
    case 'contains':
      return { body: { case_sensitive: f.case_sensitive, value: optional(f.value) } };
    case 'regex':
      return { body: { pattern: f.pattern, flags: optional(f.flags) } };
    case 'json_schema': {
      if (f.schema.trim() === '') return { body: {} };
      let schema: unknown;
      try {
        schema = JSON.parse(f.schema);
      } catch {
        return { field: 'schema', problem: 'The schema must be JSON, e.g. {"type": "object", "required": ["answer"]}' };
      }
      if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { field: 'schema', problem: 'The schema must be a JSON object' };
      return { body: { schema } };
    }
    case 'numeric':
      return { body: { tolerance: numberOf(f.tolerance), relative: f.relative } };
    case 'length':
      return { body: { min_chars: numberOf(f.min_chars), max_chars: numberOf(f.max_chars) } };
    case 'llm_judge': {
      const [by, which] = f.judge_version.split(/:(.*)/su);
      return {
        body: {
          prompt_id: optional(f.prompt_id),
          label: by === 'label' ? which : undefined,
          version: by === 'version' ? Number(which) : undefined,
          scale: f.scale,
          rubric: optional(f.rubric),
        },
      };
    }
  }
}

/** A version's settings in a line: `name: value` pairs, values as JSON. */
export function settingsText(settings: Record<string, unknown>): string {
  const entries = Object.entries(settings).filter(([, v]) => v !== null);
  return entries.length === 0 ? 'no settings' : entries.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
}

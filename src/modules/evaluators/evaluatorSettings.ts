import { Invalid, type Issue } from '../../lib/errors.js';
import { compileJsonSchema, problemPath } from './scorers/jsonSchema.js';
import { compileRegex } from './scorers/regex.js';
import type { EvaluatorKind, SettingsInput } from './evaluators.schemas.js';

/** The settings each kind takes, and of those the ones it requires. */
const KIND_FIELDS: Record<EvaluatorKind, { takes: readonly (keyof SettingsInput)[]; requires: readonly (keyof SettingsInput)[] }> = {
  exact_match: { takes: ['case_sensitive', 'normalize_whitespace'], requires: [] },
  contains: { takes: ['value', 'case_sensitive'], requires: [] },
  regex: { takes: ['pattern', 'flags'], requires: ['pattern'] },
  json_schema: { takes: ['schema'], requires: [] },
  numeric: { takes: ['tolerance', 'relative'], requires: ['tolerance'] },
  length: { takes: ['min_chars', 'max_chars'], requires: [] },
  llm_judge: { takes: ['prompt_id', 'label', 'version', 'scale', 'rubric'], requires: ['prompt_id', 'rubric'] },
};

const SETTING_NAMES = new Set(Object.values(KIND_FIELDS).flatMap((k) => k.takes));

export type Settings = Record<string, unknown>;

/**
 * A kind's settings from a request body, checked and with defaults filled in (what is stored is
 * what scoring uses, explicitly); every problem is an issue at its field. A pattern the
 * linear-time engine refuses (a back-reference, a look-around), or a schema that does not
 * compile, is refused here, never met while scoring. The judge's prompt is checked by the service (it reads the database).
 */
export function checkSettings(kind: EvaluatorKind, body: Record<string, unknown>): Settings {
  const issues: Issue[] = [];
  const { takes, requires } = KIND_FIELDS[kind];
  for (const name of Object.keys(body)) {
    if (!SETTING_NAMES.has(name as keyof SettingsInput) || takes.includes(name as keyof SettingsInput) || body[name] === undefined) continue;
    issues.push({
      part: 'body',
      path: [name],
      kind: 'constraint',
      type: 'extra_forbidden',
      reason: `Extra inputs are not permitted: not a setting of kind ${kind}`,
    });
  }
  for (const name of requires) if (body[name] === undefined) issues.push({ part: 'body', path: [name], kind: 'missing', reason: `required by kind ${kind}` });
  const problem = (path: (string | number)[], reason: string) => issues.push({ part: 'body', path, kind: 'invalid', reason });
  const s = body as SettingsInput;
  let settings: Settings = {};
  switch (kind) {
    case 'exact_match':
      settings = { case_sensitive: s.case_sensitive ?? true, normalize_whitespace: s.normalize_whitespace ?? false };
      break;
    case 'contains':
      settings = { case_sensitive: s.case_sensitive ?? true, ...(s.value === undefined ? {} : { value: s.value }) };
      break;
    case 'regex':
      if (s.pattern !== undefined) {
        const re = compileRegex({ pattern: s.pattern, flags: s.flags ?? '' });
        if (typeof re === 'string') problem(re.startsWith('flags') ? ['flags'] : ['pattern'], re);
      }
      settings = { pattern: s.pattern, flags: s.flags ?? '' };
      break;
    case 'json_schema':
      if (s.schema !== undefined) {
        const compiled = compileJsonSchema(s.schema);
        if (typeof compiled !== 'function') problem(['schema', ...problemPath(compiled)], compiled.message);
      }
      settings = s.schema === undefined ? {} : { schema: s.schema };
      break;
    case 'numeric':
      settings = { tolerance: s.tolerance, relative: s.relative ?? false };
      break;
    case 'length':
      if (s.min_chars === undefined && s.max_chars === undefined)
        issues.push({ part: 'body', path: ['max_chars'], kind: 'missing', reason: 'give min_chars, max_chars or both' });
      if (s.min_chars !== undefined && s.max_chars !== undefined && s.min_chars > s.max_chars) problem(['max_chars'], 'max_chars is below min_chars');
      settings = { ...(s.min_chars === undefined ? {} : { min_chars: s.min_chars }), ...(s.max_chars === undefined ? {} : { max_chars: s.max_chars }) };
      break;
    case 'llm_judge':
      if (s.label !== undefined && s.version !== undefined) problem(['version'], 'give label or version, not both');
      settings = { prompt_id: s.prompt_id, label: s.label ?? null, version: s.version ?? null, scale: s.scale ?? 'pass_fail', rubric: s.rubric };
      break;
  }
  if (issues.length > 0) throw new Invalid(issues);
  return settings;
}

/** How an evaluator's items are scored: 1 or 0 (pass/fail), or a judge's 1 to 5. */
export const scaleOf = (kind: EvaluatorKind, settings: Settings): 'pass_fail' | '1-5' =>
  kind === 'llm_judge' && settings.scale === '1-5' ? '1-5' : 'pass_fail';

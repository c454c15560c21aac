/**
 * The scorers of every kind but llm_judge, compiled once from an evaluator version's settings
 * (patterns and schemas are compiled here, so each item costs only the check itself). A judge
 * scores with a model call; its answer is read by parseJudgeAnswer (judgeAnswer.ts).
 */
import { compileJsonSchema, matchesJsonSchema, type JsonSchemaSettings } from './jsonSchema.js';
import { numericClose, type NumericSettings } from './numeric.js';
import { compileRegex, matchesRegex, type RegexSettings } from './regex.js';
import { contains, exactMatch, lengthWithin, type ContainsSettings, type ExactMatchSettings, type LengthSettings } from './text.js';
import type { Score, Scored } from './types.js';

export type RuleDefinition =
  | { kind: 'exact_match'; settings: ExactMatchSettings }
  | { kind: 'contains'; settings: ContainsSettings }
  | { kind: 'regex'; settings: RegexSettings }
  | { kind: 'json_schema'; settings: JsonSchemaSettings }
  | { kind: 'numeric'; settings: NumericSettings }
  | { kind: 'length'; settings: LengthSettings };

export type Scorer = (item: Scored) => Score;

/**
 * Settings the evaluator's creation would refuse today (a pattern stored before the linear-time
 * engine, which refuses it): every item is scored as an error saying why, and nothing is run on
 * JavaScript's backtracking engine instead.
 */
const unusable =
  (reason: string): Scorer =>
  () => ({ error: `this evaluator version cannot score (${reason}): create a new version of the evaluator` });

export function compileScorer(def: RuleDefinition): Scorer {
  switch (def.kind) {
    case 'exact_match':
      return (item) => exactMatch(def.settings, item);
    case 'contains':
      return (item) => contains(def.settings, item);
    case 'length':
      return (item) => lengthWithin(def.settings, item);
    case 'numeric':
      return (item) => numericClose(def.settings, item);
    case 'regex': {
      const re = compileRegex(def.settings);
      if (typeof re === 'string') return unusable(re);
      return (item) => matchesRegex(re, item);
    }
    case 'json_schema': {
      if (def.settings.schema === undefined) return (item) => matchesJsonSchema(null, item);
      const validate = compileJsonSchema(def.settings.schema);
      if (typeof validate !== 'function') return unusable(`${validate.pointer === '' ? '' : `${validate.pointer}: `}${validate.message}`);
      return (item) => matchesJsonSchema(validate, item);
    }
  }
}

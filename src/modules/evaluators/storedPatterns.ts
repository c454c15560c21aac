import type { Sql } from '../../db/sql.js';
import { refusedSchemaPatterns } from '../../lib/linearPattern.js';
import { listVersionsWithPatterns } from './evaluators.repo.js';
import { compileRegex } from './scorers/regex.js';

/** A stored pattern the linear-time engine refuses: where it is (`pattern`, `schema.properties.a.pattern`) and why. */
export interface RefusedEvaluatorPattern {
  evaluator_id: string;
  version: number;
  field: string;
  reason: string;
}

/**
 * The patterns of a project's stored regex and json_schema evaluator versions that the linear-time
 * engine refuses (versions stored before it ran patterns): scoring with them gives an error per item.
 */
export async function refusedEvaluatorPatterns(db: Sql, projectId: string): Promise<RefusedEvaluatorPattern[]> {
  const refused: RefusedEvaluatorPattern[] = [];
  for (const { evaluator_id, kind, version, settings } of await listVersionsWithPatterns(db, projectId)) {
    const add = (field: string, reason: string) => refused.push({ evaluator_id, version, field, reason });
    if (kind === 'regex') {
      const compiled = compileRegex({ pattern: String(settings.pattern), flags: typeof settings.flags === 'string' ? settings.flags : '' });
      if (typeof compiled === 'string') add('pattern', compiled);
    } else if (settings.schema !== undefined) {
      for (const [path, reason] of refusedSchemaPatterns(settings.schema)) add(['schema', ...path].join('.'), reason);
    }
  }
  return refused;
}

import type { Sql } from './db/sql.js';
import { refusedEvaluatorPatterns } from './modules/evaluators/storedPatterns.js';
import { refusedPromptPatterns } from './modules/prompts/storedPatterns.js';

/**
 * Stored patterns the linear-time engine refuses (src/lib/linearPattern.ts): a prompt version or
 * evaluator version stored before patterns ran on it may hold a back-reference or a look-around.
 * They are never run on JavaScript's backtracking engine (a call sending that variable answers 409,
 * an evaluator scores each item as an error, a response_format marks each output invalid, saying
 * why); this finds them all, for the warning the server logs when it starts and for
 * `promptline prompts check --stored` (docs/management-api.md, "Patterns").
 */
export interface StoredPatternRefusal {
  /** The project's name. */
  project: string;
  kind: 'prompt' | 'evaluator';
  /** The prompt_id or evaluator_id. */
  id: string;
  version: number;
  /** Where the pattern is in the version, as a dotted path: variables.code.pattern. */
  field: string;
  reason: string;
}

/** Every refused stored pattern of every project, project by project (each read scoped to one project). */
export async function refusedStoredPatterns(sql: Sql, projects: () => Promise<ReadonlyArray<{ id: string; name: string }>>): Promise<StoredPatternRefusal[]> {
  const found: StoredPatternRefusal[] = [];
  for (const project of await projects()) {
    for (const r of await refusedPromptPatterns(sql, project.id)) {
      found.push({ project: project.name, kind: 'prompt', id: r.prompt_id, version: r.version, field: r.field, reason: r.reason });
    }
    for (const r of await refusedEvaluatorPatterns(sql, project.id)) {
      found.push({ project: project.name, kind: 'evaluator', id: r.evaluator_id, version: r.version, field: r.field, reason: r.reason });
    }
  }
  return found;
}

/** One refusal as a line: `project default: prompt 'greet' version 2, variables.code.pattern: the pattern uses …`. */
export const describeRefusal = (r: StoredPatternRefusal): string => `project ${r.project}: ${r.kind} '${r.id}' version ${r.version}, ${r.field}: ${r.reason}`;

/** Lines logged at most: the rest are counted in one more (the CLI's check lists them all). */
const MAX_WARNINGS = 100;

/**
 * The server's warning at start, one line per refused stored pattern (its project, prompt or
 * evaluator, version and field, and why: never the inputs or outputs it would check), then a
 * summary pointing at the CLI's check. A failure to look is logged too, and never stops the start.
 */
export async function warnRefusedStoredPatterns(
  sql: Sql,
  projects: () => Promise<ReadonlyArray<{ id: string; name: string }>>,
  log: { warn(fields: object, message: string): void },
): Promise<void> {
  let refused: StoredPatternRefusal[];
  try {
    refused = await refusedStoredPatterns(sql, projects);
  } catch (error) {
    log.warn({ err: error }, 'checking the stored patterns failed');
    return;
  }
  for (const r of refused.slice(0, MAX_WARNINGS)) {
    log.warn(
      { project: r.project, [r.kind === 'prompt' ? 'prompt_id' : 'evaluator_id']: r.id, version: r.version, field: r.field, reason: r.reason },
      `stored pattern refused by the linear-time engine: ${describeRefusal(r)}`,
    );
  }
  if (refused.length > 0) {
    log.warn(
      { refused: refused.length },
      `${refused.length} stored pattern(s) refused by the linear-time engine are never run: create new versions without them (promptline prompts check --stored lists them)`,
    );
  }
}

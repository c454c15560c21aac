import type { Sql } from '../../db/sql.js';
import { refusedSchemaPatterns } from '../../lib/linearPattern.js';
import { listVersionsWithPatterns, type VersionRecord } from './prompts.repo.js';
import { compilePattern } from './variableDeclarations.js';

/** A stored pattern the linear-time engine refuses: where it is (`variables.code.pattern`) and why. */
export interface RefusedVersionPattern {
  prompt_id: string;
  version: number;
  field: string;
  reason: string;
}

/**
 * The patterns of one stored version that the linear-time engine refuses (src/lib/linearPattern.ts):
 * versions stored before it ran patterns may hold back-references or look-arounds. Every
 * pattern is named, a tool's too (only sent to the model, but a new version could not keep it).
 */
function refusedVersionPatterns(record: Pick<VersionRecord, 'prompt_id' | 'version' | 'declared_variables' | 'model_config'>): RefusedVersionPattern[] {
  const refused: RefusedVersionPattern[] = [];
  const add = (path: (string | number)[], reason: string) =>
    refused.push({ prompt_id: record.prompt_id, version: record.version, field: path.join('.'), reason });
  for (const [name, declaration] of Object.entries(record.declared_variables ?? {})) {
    if (declaration.pattern === undefined) continue;
    const compiled = compilePattern(declaration.pattern);
    if (typeof compiled === 'string') add(['variables', name, 'pattern'], compiled);
  }
  const config = record.model_config;
  for (const [i, tool] of (config?.tools ?? []).entries()) {
    for (const [path, reason] of refusedSchemaPatterns(tool.function.parameters ?? {})) add(['tools', i, 'function', 'parameters', ...path], reason);
  }
  const schema = config?.response_format?.json_schema?.schema;
  if (schema !== undefined) for (const [path, reason] of refusedSchemaPatterns(schema)) add(['response_format', 'json_schema', 'schema', ...path], reason);
  return refused;
}

/** Every refused pattern of a project's stored versions. */
export async function refusedPromptPatterns(db: Sql, projectId: string): Promise<RefusedVersionPattern[]> {
  return (await listVersionsWithPatterns(db, projectId)).flatMap(refusedVersionPatterns);
}

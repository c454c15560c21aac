import type { Sql } from '../../db/sql.js';
import type { BundlePrompt, BundleVersion } from '../sdk/sdk.schemas.js';
import { findVersion, listServedVersions, type VersionRecord } from './prompts.repo.js';
import { TemplateError, toWireNodes } from './template.js';
import { compileVersion } from './versionContent.js';
import { compilePattern } from './variableDeclarations.js';

/**
 * A version as the SDK bundle carries it, its templates as the server's own compiled trees. Throws
 * TemplateError for a version stored before today's template rules (the server answers 409 for
 * it), for one with content parts (images), which the clients do not render locally, and for one
 * whose typed variable has a pattern stored before the linear-time engine that it refuses: they
 * ask the server for such a prompt (docs/tools-and-structured-output.md, "Images").
 */
function bundleVersion(record: VersionRecord): BundleVersion {
  const compiled = compileVersion(record);
  if (compiled.messages?.some((m) => m.template === null)) throw new TemplateError('content parts are rendered by the server only');
  // A pattern stored before the linear-time engine that it refuses: the server answers such calls (409), not a client's engine.
  if (Object.values(compiled.declared ?? {}).some((d) => d.pattern !== undefined && typeof compilePattern(d.pattern) === 'string')) {
    throw new TemplateError('a typed variable has a pattern the linear-time engine refuses');
  }
  return {
    version: compiled.version,
    kind: compiled.kind,
    template: compiled.template === null ? null : toWireNodes(compiled.template.nodes),
    messages: compiled.messages === null ? null : compiled.messages.map((m) => ({ role: m.role, template: toWireNodes(m.template!.nodes) })),
    model: compiled.model,
    params: compiled.params,
    variables: [...compiled.variables],
    declared_variables: compiled.declared as BundleVersion['declared_variables'],
  };
}

/**
 * Every live prompt of a project with its served version (the `production` label, else the latest)
 * and the other versions `extra` names per prompt (running experiments' variants). A prompt with a
 * version that cannot be served (stored before today's template rules) is left out: a client asks
 * the server for it, and gets the server's own answer.
 */
export async function promptsForBundle(db: Sql, projectId: string, extra: ReadonlyMap<string, readonly number[]>): Promise<BundlePrompt[]> {
  const prompts: BundlePrompt[] = [];
  for (const served of await listServedVersions(db, projectId)) {
    try {
      const versions = [bundleVersion(served)];
      for (const number of new Set(extra.get(served.prompt_id) ?? [])) {
        if (number === served.version) continue;
        const record = await findVersion(db, projectId, served.prompt_id, number);
        if (record !== undefined) versions.push(bundleVersion(record));
      }
      prompts.push({ prompt_id: served.prompt_id, served_version: served.version, versions });
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
    }
  }
  return prompts;
}

import type { Sql } from '../../db/sql.js';
import type { CompiledTemplate } from './template.js';
import { TemplateError } from './template.js';
import { compileVersion, type CompiledVersion } from './versionContent.js';
import { messageTemplates } from './messageContent.js';
import { findPrompt, findVersion, latestVersionNumber, listLabels } from './prompts.repo.js';

/**
 * The input names every render of a version needs: what serving answers 422 for when a call
 * lacks them, whatever else it sends (template.ts's walk). Those are the top-level `{{name}}`
 * values (of `{{a.b}}`, `a`) and `{{#section}}`s of each template. Not required: `{{^name}}`
 * (absence is what it handles), `{{.}}`, and names inside a section (they may come from the
 * section's own value, and are read only when it renders). A version that declares its variables
 * needs exactly those declared required, in declaration order (an optional one gets its default).
 */
export function requiredVariables(version: CompiledVersion): string[] {
  if (version.declared !== null) {
    return Object.entries(version.declared)
      .filter(([, d]) => d.required)
      .map(([name]) => name);
  }
  const required = new Set<string>();
  const templates: CompiledTemplate[] = version.messages ? version.messages.flatMap(messageTemplates) : version.template ? [version.template] : [];
  for (const template of templates) {
    for (const node of template.nodes) {
      if ((node.kind === 'value' || node.kind === 'section') && node.path !== null) required.add(node.path[0]!);
    }
  }
  return [...required];
}

/** What other modules may ask of a prompt's versions and labels (the impact of a label move). */
export const promptRequirements = {
  /** The prompt's labels and latest version; null when the project has no such prompt. */
  async labelsOf(db: Sql, projectId: string, promptId: string): Promise<{ labels: Record<string, number>; latest: number | null } | null> {
    if ((await findPrompt(db, projectId, promptId)) === undefined) return null;
    const labels = Object.fromEntries((await listLabels(db, projectId, promptId)).map((l) => [l.label, l.version]));
    const latest = await latestVersionNumber(db, projectId, promptId);
    return { labels, latest: latest > 0 ? latest : null };
  },
  /** The names every render of the version needs; null when the prompt has no such version. */
  async requiredVariablesOf(db: Sql, projectId: string, promptId: string, version: number): Promise<string[] | null> {
    const record = await findVersion(db, projectId, promptId, version);
    if (record === undefined) return null;
    try {
      return requiredVariables(compileVersion(record));
    } catch (error) {
      // A version stored before today's template rules cannot be served at all: its variables are the best guess.
      if (!(error instanceof TemplateError)) throw error;
      return record.variables;
    }
  },
};

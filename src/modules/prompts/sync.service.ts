import type { Sql } from '../../db/sql.js';
import { Invalid, conflict, invalidIssue, type Issue } from '../../lib/errors.js';
import { fileContentHash } from '../../promptFiles/hash.js';
import type { PromptFile } from '../../promptFiles/schema.js';
import type { Actor } from '../changes/changeLog.js';
import type { VersionInput } from './prompts.schemas.js';
import type { PromptService } from './prompts.service.js';
import type { PromptBatch, PromptSyncState } from './promptBatch.js';
import { storedContentHash } from './versionHash.js';
import type { VersionRecord } from './prompts.repo.js';
import { requiredVariables } from './requirements.js';
import { TemplateError } from './template.js';
import { changes, planPrompt, type PromptFacts, type PromptPlan, type VersionFacts } from './syncPlan.js';
import type { SyncInput, SyncView } from './sync.schemas.js';
import { compileVersion } from './versionContent.js';

/** What the impact of GET …/impact says of names a push would newly require (the inputs module, wired in services.ts). */
export type ImpactWarning = (
  db: Sql,
  projectId: string,
  promptId: string,
  facts: { version: number; servedVersion: number | null; newRequired: readonly string[] },
) => Promise<string | null>;

const optionalOf = (declared: Record<string, unknown> | undefined): string[] =>
  Object.entries(declared ?? {})
    .filter(([, d]) => (d as { required?: unknown } | null)?.required === false)
    .map(([name]) => name);

/** The names every render of a content needs; a stored version older than today's template rules: its variables. */
function requiredOf(record: VersionRecord): string[] {
  try {
    return requiredVariables(compileVersion(record));
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    return record.variables;
  }
}

/** A file's content as the version a push would create; `variables` passed through as written. */
function versionInputOf(file: PromptFile, path: string, source: SyncInput['source']): VersionInput & { variables?: unknown } {
  return {
    template: file.template,
    messages: file.messages,
    model: file.model,
    params: file.params,
    fallbacks: file.fallbacks,
    tools: file.tools,
    tool_choice: file.tool_choice,
    response_format: file.response_format,
    labels: file.labels,
    ...(file.variables === undefined ? {} : { variables: file.variables }),
    commit_message: `pushed from ${path}${source?.commit ? ` at ${source.commit.slice(0, 12)}` : ''}`,
    source: { path, commit: source?.commit ?? null, author: source?.author ?? null },
  };
}

/** What the plan compares of a file: its content as a version record would hold it. */
function fileFacts(file: PromptFile, path: string) {
  const record: VersionRecord = {
    prompt_id: file.prompt_id,
    version: 0,
    template: file.template ?? null,
    messages: file.messages ?? null,
    model: file.model ?? null,
    params: file.params ?? {},
    fallbacks: file.fallbacks ?? [],
    variables: [],
    // The required names below come from the templates, less those the file declares optional.
    declared_variables: null,
    commit_message: null,
    created_at: '',
    source_path: path,
    source_commit: null,
    source_author: null,
    content_hash: null,
    model_config: null,
  };
  const optional = optionalOf(file.variables);
  return {
    path,
    promptId: file.prompt_id,
    hash: fileContentHash(file),
    labels: [...new Set(file.labels ?? [])],
    // A name declared optional is not required, whatever the templates read.
    required: requiredOf(record).filter((name) => !optional.includes(name)),
    optional,
  };
}

function promptFacts(state: PromptSyncState): PromptFacts | undefined {
  if (state.prompt === undefined) return undefined;
  const versions: VersionFacts[] = state.versions.map((record) => {
    const declared = record.declared_variables ?? {};
    const optional = optionalOf(declared);
    return {
      version: record.version,
      hash: storedContentHash(record),
      sourcePath: record.source_path,
      required: requiredOf(record).filter((name) => !optional.includes(name)),
      optional,
    };
  });
  return { archived: state.prompt.archived_at !== null, versions, labels: state.labels };
}

/** Every file checked before anything is read: each content as createVersion checks it, each prompt once. */
function checkFiles(prompts: PromptService, input: SyncInput): void {
  const issues: Issue[] = [];
  const seen = new Map<string, number>();
  for (const [i, { path, document }] of input.files.entries()) {
    const where = ['files', i, 'document'];
    const first = seen.get(document.prompt_id);
    if (first !== undefined) issues.push(invalidIssue('body', [...where, 'prompt_id'], `prompt '${document.prompt_id}' is also in files[${first}]`));
    seen.set(document.prompt_id, i);
    try {
      prompts.checkContent(versionInputOf(document, path, input.source));
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      for (const issue of error.issues) issues.push({ ...issue, path: [...where, ...issue.path] });
    }
  }
  if (issues.length > 0) throw new Invalid(issues);
}

/** The 409's sentence: every conflict and breaking change that stopped the push, one per line. */
function refusal(plans: readonly PromptPlan[], allowBreaking: boolean): string | null {
  const lines: string[] = [];
  for (const plan of plans) {
    for (const c of plan.conflicts) lines.push(`${plan.prompt_id}: conflict: ${c}`);
    if (!allowBreaking) for (const b of plan.breaking) lines.push(`${plan.prompt_id}: breaking: ${b}`);
  }
  if (lines.length === 0) return null;
  const hint = plans.some((p) => p.conflicts.length > 0) ? 'pull again and redo the change' : 'push with allow_breaking to apply anyway';
  return `push refused, nothing changed (${hint}):\n${lines.join('\n')}`;
}

/** Applies one prompt's plan through the prompt service's own writes (audit, webhooks and change log as ever). */
async function apply(ops: PromptBatch, plan: PromptPlan, file: PromptFile, input: VersionInput, actor: Actor): Promise<void> {
  if (plan.action === 'create_prompt') {
    await ops.create({ prompt_id: file.prompt_id, description: file.description ?? null, ...input }, actor);
    return;
  }
  if (plan.action === 'new_version') {
    await ops.createVersion(file.prompt_id, input, actor);
    return;
  }
  for (const move of plan.label_moves) await ops.moveLabel(file.prompt_id, move.label, move.to, actor);
}

/** POST /prompts/sync: the plan of a push of prompt files, and its application in one transaction. */
export function createSyncService(prompts: PromptService, impactWarning: ImpactWarning) {
  return {
    async sync(projectId: string, input: SyncInput, actor: Actor): Promise<SyncView> {
      checkFiles(prompts, input);
      const dryRun = input.dry_run ?? false;
      return prompts.batch(projectId, async (ops) => {
        const plans: PromptPlan[] = [];
        for (const { path, document } of input.files) {
          const plan = planPrompt(fileFacts(document, path), promptFacts(await ops.read(document.prompt_id)), input.bases?.[document.prompt_id]);
          const { before, after, new_required: newRequired } = plan.served;
          const warning =
            after === before ? null : await impactWarning(ops.db, projectId, plan.prompt_id, { version: plan.version, servedVersion: before, newRequired });
          // The impact's own sentence says it with the calls' numbers: it replaces the plain one.
          if (warning !== null && plan.breaking.length > 0) plan.breaking[0] = `production would serve version ${plan.version}: ${warning}`;
          plans.push(plan);
        }
        const changed = plans.filter(changes).length;
        const refused = dryRun ? null : refusal(plans, input.allow_breaking ?? false);
        if (refused !== null) throw conflict(refused);
        if (!dryRun) {
          for (const [i, plan] of plans.entries()) {
            const { path, document } = input.files[i]!;
            if (changes(plan)) await apply(ops, plan, document, versionInputOf(document, path, input.source), actor);
            // Pushed from a repository: the console warns before an edit that the next diff would call a conflict.
            await ops.markManagedInGit(plan.prompt_id, actor);
          }
        }
        const state: SyncView['state'] = {};
        if (!dryRun) {
          for (const plan of plans) {
            const after = await ops.read(plan.prompt_id);
            const latest = after.versions.reduce((max, v) => Math.max(max, v.version), 0);
            state[plan.prompt_id] = { latest_version: latest > 0 ? latest : null, labels: after.labels };
          }
        }
        return { dry_run: dryRun, applied: !dryRun, changes: changed, prompts: plans, state };
      });
    },
  };
}

export type SyncService = ReturnType<typeof createSyncService>;

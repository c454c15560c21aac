import type { Sql } from '../../db/sql.js';
import { conflict } from '../../lib/errors.js';
import { TemplateError } from './template.js';
import { compileVersion, type CompiledVersion } from './versionContent.js';
import { findPrompt, findVersion, latestVersionNumber, listLabels } from './prompts.repo.js';
import { noTelemetry, type Telemetry } from '../../lib/telemetry.js';

export interface PromptEntry {
  /** The version served when no experiment applies: `production` label, else the latest. */
  served: number | null;
  versions: Map<number, CompiledVersion>;
}

/**
 * Hot reads for the runtime endpoints: prompt → served version, compiled once.
 * Entries are dropped on every write to their prompt; the database stays the source of truth.
 * Unknown prompts are not cached, so random ids cannot grow memory. While `trusted()` says no (a
 * replica that cannot be sure it heard other replicas' changes), every lookup reads the database
 * and nothing is kept.
 */
export function createPromptCache(
  db: Sql,
  telemetry: Telemetry = noTelemetry,
  trusted: () => boolean = () => true,
  /** Told of every drop (null: all projects), for what is built from the same data (the SDK bundle). */
  dropped: (projectId: string | null) => void = () => undefined,
) {
  const entries = new Map<string, PromptEntry>();
  // Bumped by every invalidation: a load that began before one must not store what it read, since
  // a change may have committed between its reads.
  let generation = 0;
  const keyOf = (projectId: string, promptId: string) => `${projectId}\u0000${promptId}`;

  async function load(projectId: string, promptId: string): Promise<PromptEntry | null> {
    const key = keyOf(projectId, promptId);
    const useCache = trusted();
    const cached = useCache ? entries.get(key) : undefined;
    telemetry.cache('prompts', cached !== undefined);
    if (cached) return cached;
    const startedAt = generation;
    const prompt = await findPrompt(db, projectId, promptId);
    if (prompt === undefined || prompt.archived_at !== null) return null;
    const production = (await listLabels(db, projectId, promptId)).find((l) => l.label === 'production');
    const latest = await latestVersionNumber(db, projectId, promptId);
    const entry: PromptEntry = { served: production?.version ?? (latest > 0 ? latest : null), versions: new Map() };
    if (useCache && generation === startedAt) entries.set(key, entry);
    return entry;
  }

  async function version(projectId: string, promptId: string, entry: PromptEntry, number: number): Promise<CompiledVersion | null> {
    let compiled = entry.versions.get(number);
    if (compiled === undefined) {
      const row = await findVersion(db, projectId, promptId, number);
      if (row === undefined) return null;
      try {
        compiled = compileVersion(row);
      } catch (error) {
        // Only a version stored before today's template rules can fail here: say so, do not crash.
        if (!(error instanceof TemplateError)) throw error;
        throw conflict(`Prompt '${promptId}' version ${number} cannot be served (${error.message}): create a new version`);
      }
      entry.versions.set(number, compiled);
    }
    return compiled;
  }

  return {
    /** null: the prompt does not exist in this project, or is archived. */
    async exists(projectId: string, promptId: string): Promise<boolean> {
      return (await load(projectId, promptId)) !== null;
    },
    /** The prompt as served, or null when it does not exist in this project or is archived. */
    entry: load,
    /** The version to serve from a prompt's entry; `number` overrides (an experiment's variant). Null when none exists. */
    async served(projectId: string, promptId: string, entry: PromptEntry, number?: number): Promise<CompiledVersion | null> {
      const wanted = number ?? entry.served;
      return wanted === null ? null : version(projectId, promptId, entry, wanted);
    },
    invalidate(projectId: string, promptId: string): void {
      generation++;
      entries.delete(keyOf(projectId, promptId));
      dropped(projectId);
    },
    clear(): void {
      generation++;
      entries.clear();
      dropped(null);
    },
  };
}

export type PromptCache = ReturnType<typeof createPromptCache>;

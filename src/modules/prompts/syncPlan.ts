/**
 * The plan of a push of prompt files (POST /prompts/sync, docs/prompts-as-code.md), pure: what one
 * file would change on the server, what it conflicts with, and what it would break.
 */

/** One file, reduced to what the plan compares. */
export interface FileFacts {
  path: string;
  promptId: string;
  hash: string;
  labels: readonly string[];
  /** The names every render of its content needs. */
  required: readonly string[];
  /** The names it declares optional (`required: false`). */
  optional: readonly string[];
}

/** One stored version, reduced the same way. */
export interface VersionFacts {
  version: number;
  hash: string;
  sourcePath: string | null;
  required: readonly string[];
  optional: readonly string[];
}

export interface PromptFacts {
  archived: boolean;
  versions: readonly VersionFacts[];
  labels: Readonly<Record<string, number>>;
}

/** What the files were pulled from: each prompt's latest version and labels then (`.promptline-state.json`). */
export interface PullBase {
  latest_version: number | null;
  labels: Record<string, number>;
}

interface LabelMove {
  label: string;
  from: number | null;
  to: number;
}

export interface PromptPlan {
  prompt_id: string;
  path: string;
  action: 'create_prompt' | 'new_version' | 'unchanged';
  /** The version holding the file's content: an existing one, or the number the push would give it. */
  version: number;
  label_moves: LabelMove[];
  /** What runtime calls are served (`production`, else the latest) before and after. */
  served: { before: number | null; after: number | null; new_required: string[] };
  conflicts: string[];
  breaking: string[];
}

/** The label runtime calls are served; without it, the latest version is. */
const SERVED_LABEL = 'production';

const minus = (a: readonly string[], b: readonly string[]) => a.filter((x) => !b.includes(x));
const names = (list: readonly string[]) => list.join(', ');

export function planPrompt(file: FileFacts, server: PromptFacts | undefined, base: PullBase | undefined): PromptPlan {
  if (server === undefined) {
    return {
      prompt_id: file.promptId,
      path: file.path,
      action: 'create_prompt',
      version: 1,
      label_moves: file.labels.map((label) => ({ label, from: null, to: 1 })),
      served: { before: null, after: 1, new_required: [] },
      conflicts: [],
      breaking: [],
    };
  }
  const latest = server.versions.reduce((max, v) => Math.max(max, v.version), 0);
  const byNumber = new Map(server.versions.map((v) => [v.version, v]));
  // The content is already a version when a version the file's labels point at, or the latest, has its hash.
  const candidates = [...file.labels.map((l) => server.labels[l]).filter((v): v is number => v !== undefined), latest];
  const match = candidates.map((n) => byNumber.get(n)).find((v) => v !== undefined && v.hash === file.hash);
  const version = match?.version ?? latest + 1;
  const label_moves = file.labels
    .filter((label) => server.labels[label] !== version)
    .map((label) => ({ label, from: server.labels[label] ?? null, to: version }));

  const before = server.labels[SERVED_LABEL] ?? (latest > 0 ? latest : null);
  const after = file.labels.includes(SERVED_LABEL) ? version : (server.labels[SERVED_LABEL] ?? version);
  const breaking: string[] = [];
  let newRequired: string[] = [];
  const previous = before === null ? undefined : byNumber.get(before);
  if (after !== before && previous !== undefined) {
    newRequired = minus(file.required, previous.required);
    if (newRequired.length > 0) {
      breaking.push(`${SERVED_LABEL} would serve version ${version}, which requires ${names(newRequired)}: version ${before} does not`);
    }
    const dropped = minus(previous.optional, [...file.required, ...file.optional]);
    if (dropped.length > 0) breaking.push(`version ${version} no longer declares ${names(dropped)}, optional in version ${before}: callers may send it`);
  }
  return {
    prompt_id: file.promptId,
    path: file.path,
    action: match === undefined ? 'new_version' : 'unchanged',
    version,
    label_moves,
    served: { before, after, new_required: newRequired },
    conflicts: conflictsOf(file.path, server, base),
    breaking,
  };
}

/**
 * Changes made on the server since the pull the files came from: a version, or a label move, that
 * a push of this very file did not make. Versions whose source is this file are the file's own.
 */
export function conflictsOf(path: string, server: PromptFacts, base: PullBase | undefined): string[] {
  const own = (n: number | undefined) => n !== undefined && server.versions.find((v) => v.version === n)?.sourcePath === path;
  const conflicts: string[] = [];
  if (server.archived) conflicts.push('the prompt is archived on the server');
  const foreign = server.versions.filter((v) => v.version > (base?.latest_version ?? 0) && v.sourcePath !== path).map((v) => v.version);
  if (base === undefined) {
    if (foreign.length > 0) conflicts.push('the prompt exists on the server but was never pulled here: pull first');
    return conflicts;
  }
  for (const n of foreign.sort((a, b) => a - b)) conflicts.push(`version ${n} was created on the server since the last pull`);
  const labels = [...new Set([...Object.keys(server.labels), ...Object.keys(base.labels)])].sort();
  for (const label of labels) {
    const now = server.labels[label];
    const then = base.labels[label];
    if (now === then || own(now)) continue;
    conflicts.push(
      now === undefined
        ? `label ${label} was removed on the server since the last pull`
        : `label ${label} was moved ${then === undefined ? 'onto' : `from version ${then} to`} version ${now} on the server since the last pull`,
    );
  }
  return conflicts;
}

/** Whether the plan changes anything on the server. */
export const changes = (plan: PromptPlan): boolean => plan.action !== 'unchanged' || plan.label_moves.length > 0;

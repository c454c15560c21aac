import { ApiError, type ApiClient } from '../api/client.js';
import type { ImportedPrompt, Mapped, Problem, VersionContent } from './types.js';

/** What the server holds of a version, as far as comparing content goes. */
interface ServerVersion {
  version: number;
  template: string | null;
  messages: Array<{ role: string; content: string }> | null;
  model: string | null;
  params: Record<string, unknown>;
}

type Step = { origin: string; action: 'create' | 'exists'; version: number; content: VersionContent };
interface LabelMove {
  label: string;
  /** The version it will point at (for a version still to be created: the number it will get). */
  version: number;
  origin: string;
}

interface PromptPlan {
  prompt_id: string;
  description: string | null;
  /** Whether the prompt is already on the server. */
  exists: boolean;
  steps: Step[];
  labels: LabelMove[];
}

export interface Plan {
  prompts: PromptPlan[];
  problems: Problem[];
}

/** JSON with object keys sorted, so that equal content compares equal however it was written. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

const keyOf = (c: { template?: string | null; messages?: unknown; model: string | null; params: Record<string, unknown> }) =>
  canonical({ template: c.template ?? null, messages: c.messages ?? null, model: c.model, params: c.params });

/**
 * The version already on the server with this content, if any: the same text or messages, model and
 * params (the commit message is no content). A server version without a model also matches content
 * that names one: an earlier import whose model the server refused kept the version without it.
 */
export function findSameContent(content: VersionContent, existing: readonly ServerVersion[]): number | null {
  const exact = existing.find((v) => keyOf(v) === keyOf(content));
  if (exact !== undefined) return exact.version;
  const modelless = existing.find((v) => v.model === null && keyOf(v) === keyOf({ ...content, model: null }));
  return modelless?.version ?? null;
}

async function serverState(
  client: ApiClient,
  promptId: string,
): Promise<{ archived: boolean; labels: Record<string, number>; versions: ServerVersion[] } | null> {
  try {
    const prompt = await client.request<{ archived_at: string | null; labels: Record<string, number> }>('GET', `/prompts/${encodeURIComponent(promptId)}`);
    const versions = await client.request<{ data: ServerVersion[] }>('GET', `/prompts/${encodeURIComponent(promptId)}/versions`);
    return { archived: prompt.archived_at !== null, labels: prompt.labels, versions: versions.data };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** Compares what was read with what the server holds: which versions are new, which already there. */
export async function planImport(client: ApiClient, mapped: Mapped): Promise<Plan> {
  const problems = [...mapped.problems];
  const prompts: PromptPlan[] = [];
  for (const prompt of mapped.prompts) {
    const state = await serverState(client, prompt.prompt_id);
    if (state?.archived) {
      problems.push({ prompt: prompt.prompt_id, version: null, reason: 'archived on the server: skipped' });
      continue;
    }
    prompts.push(planPrompt(prompt, state));
  }
  return { prompts, problems };
}

function planPrompt(prompt: ImportedPrompt, state: { labels: Record<string, number>; versions: ServerVersion[] } | null): PromptPlan {
  let next = Math.max(0, ...(state?.versions ?? []).map((v) => v.version)) + 1;
  const steps: Step[] = [];
  const labels: LabelMove[] = [];
  for (const version of prompt.versions) {
    const same = findSameContent(version.content, state?.versions ?? []);
    const step: Step =
      same === null
        ? { origin: version.origin, action: 'create', version: next++, content: version.content }
        : { origin: version.origin, action: 'exists', version: same, content: version.content };
    steps.push(step);
    // A label set twice in the source (it moved) ends on the later version, as it did there.
    for (const label of version.labels) {
      const at = labels.findIndex((l) => l.label === label);
      if (at >= 0) labels.splice(at, 1);
      labels.push({ label, version: step.version, origin: version.origin });
    }
  }
  return {
    prompt_id: prompt.prompt_id,
    description: prompt.description,
    exists: state !== null,
    steps,
    labels: labels.filter((l) => state?.labels[l.label] !== l.version),
  };
}

/** What applying did, step by step, for the report. */
export interface Applied {
  done: string[];
  problems: Problem[];
}

const isModelRefusal = (error: unknown) =>
  error instanceof ApiError && error.status === 422 && Array.isArray(error.detail) && error.detail.some((d: { loc?: unknown[] }) => d.loc?.[1] === 'model');

/**
 * Applies a plan through the management API: the prompt (when new), each new version in order,
 * then the label moves. A version the server refuses is reported and the rest goes on; a model
 * whose provider the server has not configured is dropped (reported) and the version kept.
 */
export async function applyPlan(client: ApiClient, plan: Plan): Promise<Applied> {
  const done: string[] = [];
  const problems: Problem[] = [];
  for (const prompt of plan.prompts) {
    const path = `/prompts/${encodeURIComponent(prompt.prompt_id)}`;
    if (!prompt.exists && prompt.steps.some((s) => s.action === 'create')) {
      await client.request('POST', '/prompts', {
        body: { prompt_id: prompt.prompt_id, ...(prompt.description === null ? {} : { description: prompt.description }) },
      });
      done.push(`created prompt ${prompt.prompt_id}`);
    }
    // The numbers the server really gave (a refused version shifts the later ones).
    const numbers = new Map<string, number>();
    for (const step of prompt.steps) {
      if (step.action === 'exists') {
        numbers.set(step.origin, step.version);
        continue;
      }
      const created = await createVersion(client, path, step, (reason) => problems.push({ prompt: prompt.prompt_id, version: step.origin, reason }));
      if (created === null) continue;
      numbers.set(step.origin, created);
      done.push(`${prompt.prompt_id}: created version ${created} from ${step.origin}`);
    }
    for (const move of prompt.labels) {
      const version = numbers.get(move.origin);
      if (version === undefined) {
        problems.push({ prompt: prompt.prompt_id, version: move.origin, reason: `label '${move.label}' not moved: its version was not created` });
        continue;
      }
      await client.request('PUT', `${path}/labels/${encodeURIComponent(move.label)}`, { body: { version } });
      done.push(`${prompt.prompt_id}: label ${move.label} → version ${version}`);
    }
  }
  return { done, problems };
}

async function createVersion(client: ApiClient, path: string, step: Step, report: (reason: string) => void): Promise<number | null> {
  const body = { ...step.content };
  try {
    return (await client.request<{ version: number }>('POST', `${path}/versions`, { body })).version;
  } catch (error) {
    if (isModelRefusal(error) && body.model !== null) {
      report(`model '${body.model}' refused by the server (${(error as ApiError).message}): version kept without a model`);
      return createVersion(client, path, { ...step, content: { ...step.content, model: null } }, report);
    }
    if (error instanceof ApiError && error.status === 422) {
      report(`refused by the server: ${error.message}`);
      return null;
    }
    throw error;
  }
}

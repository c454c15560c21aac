import fs from 'node:fs';
import path from 'node:path';
import type { ApiClient } from '../api/client.js';
import type { PromptView, VersionView } from '../../modules/prompts/prompts.schemas.js';
import { parsePromptFile } from '../../promptFiles/parse.js';
import { fileNameOf, type PromptFile } from '../../promptFiles/schema.js';
import { serialisePromptFile } from '../../promptFiles/serialise.js';
import { writeIfChanged, writeState, type PullBase } from './files.js';

const PAGE = 200;

async function livePrompts(api: ApiClient): Promise<PromptView[]> {
  const prompts: PromptView[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.request<{ data: PromptView[]; next_cursor: string | null }>('GET', '/prompts', { query: { limit: PAGE, cursor } });
    prompts.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return prompts.sort((a, b) => (a.prompt_id < b.prompt_id ? -1 : 1));
}

/** Tags are the file's own (the server keeps none): a pull keeps those already written. */
function tagsIn(file: string): string[] | undefined {
  if (!fs.existsSync(file)) return undefined;
  const parsed = parsePromptFile(fs.readFileSync(file, 'utf8'));
  return parsed.ok ? parsed.file.tags : undefined;
}

/** A served version as its file. */
function fileOf(prompt: PromptView, version: VersionView, tags?: string[]): PromptFile {
  return {
    prompt_id: prompt.prompt_id,
    ...(prompt.description === null ? {} : { description: prompt.description }),
    ...(tags === undefined ? {} : { tags }),
    labels: [...version.labels].sort(),
    model: version.model,
    fallbacks: version.fallbacks,
    params: version.params,
    ...(version.tools === undefined ? {} : { tools: version.tools }),
    ...(version.tool_choice === undefined ? {} : { tool_choice: version.tool_choice }),
    ...(version.response_format === undefined ? {} : { response_format: version.response_format }),
    ...(version.declared_variables === null ? {} : { variables: asWritten(version.declared_variables) }),
    ...(version.template === null ? {} : { template: version.template }),
    ...(version.messages === null ? {} : { messages: version.messages }),
  };
}

/** Declarations as a person writes them: `required: true` is the default, so it is left out. */
function asWritten(declared: NonNullable<VersionView['declared_variables']>): NonNullable<PromptFile['variables']> {
  return Object.fromEntries(Object.entries(declared).map(([name, { required, ...rest }]) => [name, required ? rest : { required, ...rest }]));
}

/**
 * Writes the served version (production, else the latest) of every live prompt with a version to
 * DIR/<prompt_id>.prompt.yaml, and what it saw to DIR/.promptline-state.json. Answers the files written.
 */
export async function pull(api: ApiClient, dir: string): Promise<{ written: string[]; unchanged: number }> {
  fs.mkdirSync(dir, { recursive: true });
  const state: Record<string, PullBase> = {};
  const written: string[] = [];
  let unchanged = 0;
  for (const prompt of await livePrompts(api)) {
    if (prompt.latest_version === null) continue;
    const served = prompt.labels.production ?? prompt.latest_version;
    const id = encodeURIComponent(prompt.prompt_id);
    const version = await api.request<VersionView>('GET', `/prompts/${id}/versions/${served}`);
    const file = path.join(dir, fileNameOf(prompt.prompt_id));
    if (writeIfChanged(file, serialisePromptFile(fileOf(prompt, version, tagsIn(file))))) written.push(file);
    else unchanged++;
    state[prompt.prompt_id] = { latest_version: prompt.latest_version, labels: prompt.labels };
  }
  writeState(dir, state);
  return { written, unchanged };
}

import type { ChatMessage } from '../../lib/chatMessage.js';
import { isObject, problemsFor, templateProblems, toModel, toPromptId, toRole } from './mapCommon.js';
import type { ImportedPrompt, ImportedVersion, Mapped, Problem } from './types.js';

/**
 * An exported OpenAI stored prompt (the prompt objects the Responses API's `prompt: {id, version,
 * variables}` refers to): per version `{id: "pmpt_…", version, name?, instructions, input?, model,
 * temperature?, top_p?, max_output_tokens?, reasoning?, text?, tools?}`, `instructions` a string or
 * a list of messages and `{{variables}}` in any message. A file holds one object, a list of them,
 * `{data: [...]}` (OpenAI's list envelope), or one prompt with `versions: [...]`.
 * docs/importing.md says which fields this relies on and what maps.
 */
export function mapOpenAI(json: unknown, options: { provider?: string } = {}): Mapped {
  const problems: Problem[] = [];
  const items = Array.isArray(json) ? json : isObject(json) && Array.isArray(json.data) ? json.data : [json];
  const flat = items.flatMap((item) =>
    isObject(item) && Array.isArray(item.versions) ? item.versions.map((v) => (isObject(v) ? { id: item.id, name: item.name, ...v } : v)) : [item],
  );
  const byId = new Map<string, Record<string, unknown>[]>();
  flat.forEach((item, index) => {
    if (!isObject(item) || typeof item.id !== 'string') {
      problems.push({ prompt: `item ${index + 1}`, version: null, reason: 'not an OpenAI prompt (no id): skipped' });
      return;
    }
    byId.set(item.id, [...(byId.get(item.id) ?? []), item]);
  });
  const prompts: ImportedPrompt[] = [];
  for (const [id, versions] of byId) {
    const prompt = mapPrompt(id, versions, options.provider ?? 'openai', problems);
    if (prompt !== null) prompts.push(prompt);
  }
  return { prompts, problems };
}

function mapPrompt(id: string, items: Record<string, unknown>[], provider: string, problems: Problem[]): ImportedPrompt | null {
  const report = problemsFor(problems, id);
  const promptId = toPromptId(id);
  if (promptId === null) {
    report(null, 'the id cannot be a Promptline prompt id: skipped');
    return null;
  }
  const sorted = [...items].sort((a, b) => Number(a.version ?? 0) - Number(b.version ?? 0));
  const versions: ImportedVersion[] = [];
  const seen = new Set<string>();
  for (const item of sorted) {
    const origin = `version ${String(item.version ?? '?')}`;
    if (seen.has(origin)) {
      report(origin, 'the same version twice in the file: the second is skipped');
      continue;
    }
    seen.add(origin);
    const version = mapVersion(item, origin, provider, (reason) => report(origin, reason));
    if (version !== null) versions.push(version);
  }
  const named = sorted.map((item) => item.name).findLast((name) => typeof name === 'string');
  const described = sorted.map((item) => item.description).findLast((d) => typeof d === 'string');
  return { prompt_id: promptId, description: (described ?? named ?? null) as string | null, versions };
}

function mapVersion(item: Record<string, unknown>, origin: string, provider: string, report: (reason: string) => void): ImportedVersion | null {
  const messages = mapMessages(item, report);
  if (messages === null) return null;
  const odd = templateProblems({ messages });
  if (odd.length > 0) {
    for (const reason of odd) report(reason);
    return null;
  }
  const model = toModel(item.model, provider);
  if (model.problem !== null) report(model.problem);
  const params = mapSettings(item, report);
  if (Array.isArray(item.tools) && item.tools.length > 0) report(`${item.tools.length} tool(s): Promptline versions carry no tools, left out`);
  if (isObject(item.variables) && Object.keys(item.variables).length > 0) {
    report(`variable values ${Object.keys(item.variables).join(', ')}: callers send inputs at run time, left out`);
  }
  return { origin, content: { messages, model: model.model, params, commit_message: `imported from OpenAI prompt ${String(item.id)} ${origin}` }, labels: [] };
}

/** `instructions` (a system message when a string) then `input`/`messages`, as chat messages. */
function mapMessages(item: Record<string, unknown>, report: (reason: string) => void): ChatMessage[] | null {
  const messages: ChatMessage[] = [];
  if (typeof item.instructions === 'string') messages.push({ role: 'system', content: item.instructions });
  const lists = [item.instructions, item.input, item.messages].filter(Array.isArray) as unknown[][];
  for (const message of lists.flat()) {
    const role = isObject(message) ? toRole(message.role) : null;
    const content = isObject(message) ? textOf(message.content) : null;
    if (role === null || content === null) {
      report(`a message that is not {role: system|developer|user|assistant, content: text}: skipped the version`);
      return null;
    }
    messages.push({ role, content });
  }
  if (messages.length === 0) {
    report('no instructions or messages: skipped');
    return null;
  }
  return messages;
}

/** A message's text: a string, or its text parts joined (an image or a file part makes it null). */
function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts: string[] = [];
  for (const part of content) {
    if (!isObject(part) || !['input_text', 'output_text', 'text'].includes(part.type as string) || typeof part.text !== 'string') return null;
    texts.push(part.text);
  }
  return texts.join('\n');
}

/** The Responses API's model settings as chat-completion parameters (what Promptline's providers take). */
function mapSettings(item: Record<string, unknown>, report: (reason: string) => void): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const key of ['temperature', 'top_p', 'seed'] as const) if (typeof item[key] === 'number') params[key] = item[key];
  if (typeof item.max_output_tokens === 'number') params.max_completion_tokens = item.max_output_tokens;
  if (isObject(item.reasoning) && typeof item.reasoning.effort === 'string') params.reasoning_effort = item.reasoning.effort;
  if (isObject(item.text)) {
    if (typeof item.text.verbosity === 'string') params.verbosity = item.text.verbosity;
    const format = item.text.format;
    if (isObject(format) && format.type === 'json_schema') {
      const { type: _type, ...schema } = format;
      params.response_format = { type: 'json_schema', json_schema: schema };
    } else if (isObject(format) && format.type === 'json_object') params.response_format = { type: 'json_object' };
    else if (isObject(format) && format.type !== 'text') report(`text format '${String(format.type)}': left out`);
  }
  return params;
}

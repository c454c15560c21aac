import type { ChatMessage } from '../../lib/chatMessage.js';
import { isObject, mapLabels, modelParams, problemsFor, templateProblems, toModel, toPromptId, toRole } from './mapCommon.js';
import type { ImportedPrompt, ImportedVersion, Mapped, Problem } from './types.js';

/**
 * Langfuse's prompts as its public API answers them (GET /api/public/v2/prompts/{name}, one object
 * per version): `{name, version, type: "text" | "chat", prompt, config, labels, tags, commitMessage}`,
 * `prompt` a string (text) or a list of `{role, content}` and `{type: "placeholder", name}` (chat).
 * A file holds one such object, a list of them, or `{data: [...]}`. docs/importing.md says what maps.
 */
export function mapLangfuse(json: unknown, options: { provider?: string } = {}): Mapped {
  const problems: Problem[] = [];
  const items = Array.isArray(json) ? json : isObject(json) && Array.isArray(json.data) ? json.data : [json];
  const byName = new Map<string, Record<string, unknown>[]>();
  items.forEach((item, index) => {
    if (!isObject(item) || typeof item.name !== 'string') {
      problems.push({ prompt: `item ${index + 1}`, version: null, reason: 'not a Langfuse prompt (no name): skipped' });
      return;
    }
    if (item.prompt === undefined && Array.isArray(item.versions)) {
      // The list endpoint (GET /api/public/v2/prompts) answers names and version numbers, not content.
      problems.push({
        prompt: item.name,
        version: null,
        reason: `only the prompt's metadata (the list endpoint's answer): export each version with GET /api/public/v2/prompts/{name}?version=N`,
      });
      return;
    }
    byName.set(item.name, [...(byName.get(item.name) ?? []), item]);
  });
  const prompts: ImportedPrompt[] = [];
  for (const [name, versions] of byName) {
    const prompt = mapPrompt(name, versions, options.provider, problems);
    if (prompt !== null) prompts.push(prompt);
  }
  return { prompts, problems };
}

function mapPrompt(name: string, items: Record<string, unknown>[], provider: string | undefined, problems: Problem[]): ImportedPrompt | null {
  const report = problemsFor(problems, name);
  const promptId = toPromptId(name);
  if (promptId === null) {
    report(null, `the name cannot be a Promptline prompt id (A-Z a-z 0-9 _ . -, up to 128): skipped`);
    return null;
  }
  if (promptId !== name) report(null, `imported as prompt '${promptId}' (Promptline ids take A-Z a-z 0-9 _ . - only)`);
  const tags = [...new Set(items.flatMap((item) => (Array.isArray(item.tags) ? item.tags : [])))];
  if (tags.length > 0) report(null, `tags ${tags.map((t) => JSON.stringify(t)).join(', ')} not kept (Promptline prompts have no tags)`);
  const sorted = [...items].sort((a, b) => Number(a.version) - Number(b.version));
  const versions: ImportedVersion[] = [];
  const seen = new Set<number>();
  for (const item of sorted) {
    const origin = `v${String(item.version)}`;
    if (!Number.isInteger(item.version) || (item.version as number) < 1) {
      report(origin, 'no positive integer version: skipped');
      continue;
    }
    if (seen.has(item.version as number)) {
      report(origin, 'the same version twice in the file: the second is skipped');
      continue;
    }
    seen.add(item.version as number);
    const version = mapVersion(item, origin, provider, (reason) => report(origin, reason));
    if (version !== null) versions.push(version);
  }
  return { prompt_id: promptId, description: null, versions };
}

function mapVersion(item: Record<string, unknown>, origin: string, provider: string | undefined, report: (reason: string) => void): ImportedVersion | null {
  const body = mapBody(item, report);
  if (body === null) return null;
  const reference = JSON.stringify(body).match(/@@@langfusePrompt:[^@]*@@@/);
  if (reference !== null) {
    report(`references another prompt (${reference[0]}), which Promptline does not compose: export it resolved (resolve=true): skipped`);
    return null;
  }
  const odd = templateProblems(body);
  if (odd.length > 0) {
    for (const reason of odd) report(reason);
    return null;
  }
  const config = isObject(item.config) ? item.config : {};
  const model = toModel(config.model, provider);
  if (model.problem !== null) report(model.problem);
  const { params, left } = modelParams(config, ['model']);
  if (left.length > 0) report(`config ${left.map((k) => `'${k}'`).join(', ')}: not a model parameter, left out`);
  const labels = mapLabels(Array.isArray(item.labels) ? item.labels : [], ['latest']);
  for (const reason of labels.dropped) report(reason);
  return {
    origin,
    content: { ...body, model: model.model, params, commit_message: typeof item.commitMessage === 'string' ? item.commitMessage : null },
    labels: labels.kept,
  };
}

/** The template or messages of one version, or null (reported) when it has none Promptline can hold. */
function mapBody(item: Record<string, unknown>, report: (reason: string) => void): { template: string } | { messages: ChatMessage[] } | null {
  if (typeof item.prompt === 'string') {
    if (item.type === 'chat') report("type 'chat' with a text prompt: imported as a text prompt");
    return { template: item.prompt };
  }
  if (!Array.isArray(item.prompt)) {
    report('no prompt text or messages: skipped');
    return null;
  }
  const messages: ChatMessage[] = [];
  for (const [index, message] of item.prompt.entries()) {
    if (isObject(message) && message.type === 'placeholder') {
      report(`placeholder '${String(message.name)}' (messages inserted at run time) has no Promptline equivalent: left out`);
      continue;
    }
    const role = isObject(message) ? toRole(message.role) : null;
    if (!isObject(message) || role === null || typeof message.content !== 'string') {
      report(`message ${index + 1}: not a {role: system|user|assistant, content: string} message: skipped the version`);
      return null;
    }
    messages.push({ role, content: message.content });
  }
  if (messages.length === 0) {
    report('no messages left: skipped');
    return null;
  }
  return { messages };
}

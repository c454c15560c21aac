import { contentText, type ChatMessage, type ChatRole } from '../../lib/chatMessage.js';
import type { Problem } from './types.js';

/** The API's own patterns (src/modules/prompts/prompts.schemas.ts). */
const PROMPT_ID = /^[A-Za-z0-9_.-]{1,128}$/;
const LABEL = /^[a-z0-9_-]{1,64}$/;

/** A reporter bound to one prompt (and maybe one version), so mappers say only the reason. */
export function problemsFor(problems: Problem[], prompt: string) {
  return (version: string | null, reason: string) => problems.push({ prompt, version, reason });
}

/**
 * A name from another tool as a prompt id: as is when it fits; else folders (`a/b`) become dots and
 * anything else outside `A-Z a-z 0-9 _ . -` a dash. Null when nothing usable is left.
 */
export function toPromptId(name: string): string | null {
  if (PROMPT_ID.test(name)) return name;
  const id = name
    .trim()
    .replace(/\//g, '.')
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 128);
  return PROMPT_ID.test(id) ? id : null;
}

/** Labels kept (valid, not `latest`) and the reasons the others were left out. */
export function mapLabels(labels: readonly unknown[], implicit: readonly string[]): { kept: string[]; dropped: string[] } {
  const kept: string[] = [];
  const dropped: string[] = [];
  for (const label of labels) {
    if (typeof label !== 'string') dropped.push(`label ${JSON.stringify(label)} is not a string`);
    else if (implicit.includes(label)) continue;
    else if (LABEL.test(label)) kept.push(label);
    else dropped.push(`label '${label}' does not fit Promptline's labels (a-z 0-9 _ -, up to 64): not moved`);
  }
  return { kept, dropped };
}

/**
 * Which Promptline provider serves a model name. A name that already says `provider/model` is kept;
 * `--provider` names one for every bare model; else the maker is read from the name's well-known
 * prefix. The provider must be configured on the server under that name (the API refuses it
 * otherwise, and the import then keeps the version without a model).
 */
const MAKERS: Array<[RegExp, string]> = [
  [/^(gpt-|o\d|chatgpt-|text-|davinci|babbage|codex-|computer-use)/i, 'openai'],
  [/^claude-/i, 'anthropic'],
  [/^gemini-|^gemma-/i, 'google'],
  [/^(mistral|mixtral|codestral|ministral|pixtral|magistral)/i, 'mistral'],
];

export function toModel(model: unknown, provider: string | undefined): { model: string | null; problem: string | null } {
  if (model === undefined || model === null || model === '') return { model: null, problem: null };
  if (typeof model !== 'string') return { model: null, problem: `model ${JSON.stringify(model)} is not a string: left unset` };
  if (/^[A-Za-z0-9_.-]+\/\S+$/.test(model)) return { model, problem: null };
  if (/\s/.test(model)) return { model: null, problem: `model '${model}' is not a model name: left unset` };
  const maker = provider ?? MAKERS.find(([prefix]) => prefix.test(model))?.[1];
  if (maker === undefined)
    return { model: null, problem: `model '${model}': unknown provider (give --provider): left unset, the server's default model serves it` };
  return { model: `${maker}/${model}`, problem: null };
}

/** Chat-completion parameters a provider takes as they are; anything else in a config is not a model parameter. */
const MODEL_PARAMS = new Set([
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'frequency_penalty',
  'presence_penalty',
  'stop',
  'seed',
  'response_format',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'reasoning_effort',
  'verbosity',
  'user',
]);

/** Keeps the model parameters of a config; answers the others' names, which are left out. */
export function modelParams(config: Record<string, unknown>, skip: readonly string[]): { params: Record<string, unknown>; left: string[] } {
  const params: Record<string, unknown> = {};
  const left: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    if (skip.includes(key)) continue;
    if (MODEL_PARAMS.has(key)) params[key] = value;
    else left.push(key);
  }
  return { params, left };
}

/**
 * Variables are plain `{{name}}` in both vendors' templates, substituted as text; Promptline's
 * templates are Mustache, where `{{#x}}`, `{{^x}}`, `{{/x}}`, `{{>x}}`, `{{=…=}}`, `{{!…}}`,
 * `{{{x}}}` and `{{&x}}` mean something else. A template with such a tag (or a tag that is not a
 * name, like `{{ a b }}`) would render differently here: it is reported, not imported.
 */
export function nonVariableTags(template: string): string[] {
  const odd: string[] = [];
  for (const match of template.matchAll(/\{\{(\{?)([^}]*)\}?\}\}/g)) {
    const inner = match[2]!.trim();
    if (match[1] === '{' || !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(inner)) odd.push(match[0]);
  }
  return odd;
}

/** A message role of another tool as Promptline's: OpenAI's `developer` is its `system`. */
export function toRole(role: unknown): ChatRole | null {
  if (role === 'system' || role === 'user' || role === 'assistant') return role;
  if (role === 'developer') return 'system';
  return null;
}

/** The problems of a version's templates, or none (then it can be imported). */
export function templateProblems(content: { template?: string; messages?: ChatMessage[] }): string[] {
  const texts = content.template !== undefined ? [content.template] : (content.messages ?? []).map((m) => contentText(m.content));
  const odd = texts.flatMap(nonVariableTags);
  return odd.length === 0 ? [] : [`${odd.map((t) => `'${t}'`).join(', ')}: not a plain {{variable}}, which Promptline would read as Mustache: not imported`];
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

import type { ChatMessage } from '../../lib/chatMessage.js';
import { Invalid, invalidIssue, type Issue } from '../../lib/errors.js';
import { compileTemplate, TemplateError, type CompiledTemplate, type RenderLimits } from './template.js';
import type { VersionInput } from './prompts.schemas.js';
import type { VersionRecord } from './prompts.repo.js';
import { compileInputChecks, type InputChecks } from './inputChecks.js';
import { checkDeclarations, namesUsed, normaliseDeclarations, type Declarations } from './variableDeclarations.js';
import type { ModelConfig } from '../../lib/modelConfig.js';
import { PatternBudget } from '../../lib/linearPattern.js';
import { checkModelConfig, lazyOutputCheck, type OutputCheck } from './modelConfigChecks.js';
import type { ModelConfigCheck } from './modelConfigOffLoop.js';
import { checkImageUrls, isBlank, type CompiledMessage, type CompiledPart } from './messageContent.js';

/** A version ready to serve: templates parsed once, reused by every request. */
export interface CompiledVersion {
  readonly version: number;
  readonly kind: 'text' | 'chat';
  readonly template: CompiledTemplate | null;
  readonly messages: readonly CompiledMessage[] | null;
  /** Some message has an image part: its runs store data URLs as placeholders (messageContent.ts). */
  readonly hasImages: boolean;
  readonly model: string | null;
  readonly params: Record<string, unknown>;
  readonly fallbacks: readonly string[];
  readonly variables: readonly string[];
  /** The typed variables as stored; null: none declared. */
  readonly declared: Declarations | null;
  /** The declarations compiled once (patterns included); null: inputs go to the template unchecked. */
  readonly inputChecks: InputChecks | null;
  /** Tools, tool_choice and response_format, sent with every call; null: none set. */
  readonly modelConfig: ModelConfig | null;
  /** The check of outputs against a json response_format, compiled at its first use; null: nothing to check. */
  readonly outputCheck: OutputCheck | null;
}

/** A stored version with its templates parsed; throws TemplateError for one stored before today's template rules. */
export function compileVersion(record: VersionRecord): CompiledVersion {
  return {
    version: record.version,
    kind: record.messages === null ? 'text' : 'chat',
    template: record.template === null ? null : compileTemplate(record.template),
    messages: record.messages === null ? null : record.messages.map((m) => compileMessage(m, compileTemplate)),
    hasImages: record.messages?.some((m) => typeof m.content !== 'string' && m.content.some((p) => p.type === 'image_url')) ?? false,
    model: record.model,
    params: record.params,
    fallbacks: record.fallbacks,
    variables: record.variables,
    declared: record.declared_variables,
    inputChecks:
      record.declared_variables === null ? null : compileInputChecks(record.declared_variables, `Prompt '${record.prompt_id}' version ${record.version}`),
    modelConfig: record.model_config,
    outputCheck: lazyOutputCheck(record.model_config?.response_format),
  };
}

/** A message's templates compiled by `compile` (which may report a problem and answer null). */
function compileMessage<T extends CompiledTemplate | null>(
  m: ChatMessage,
  compile: (source: string, path: (string | number)[]) => T,
  i = 0,
): { role: ChatMessage['role']; template: T | null; parts: Array<CompiledPart & { ok: T }> | null } {
  if (typeof m.content === 'string') return { role: m.role, template: compile(m.content, ['messages', i, 'content']), parts: null };
  const parts = m.content.map((p, j) => {
    if (p.type === 'text') {
      const template = compile(p.text, ['messages', i, 'content', j, 'text']);
      return { type: 'text' as const, template: template!, ok: template };
    }
    const url = compile(p.image_url.url, ['messages', i, 'content', j, 'image_url', 'url']);
    return { type: 'image_url' as const, url: url!, detail: p.image_url.detail, ok: url };
  });
  return { role: m.role, template: null, parts };
}

/** Params the service itself controls: a version cannot override them. */
const RESERVED_PARAMS = ['model', 'messages', 'stream', 'n'];
const MAX_PARAMS_JSON = 16_384;
/** All templates of one version together (a chat prompt's messages add up). */
const MAX_VERSION_TEMPLATE_CHARS = 200_000;

const problem = (path: (string | number)[], why: string) => invalidIssue('body', path, why);

/**
 * Checks a version's content beyond its schema: exactly one of template/messages, not blank, templates that
 * parse without partials or delimiter changes and nest at most MAX_TEMPLATE_DEPTH deep, a total
 * size that one render can always afford (so nothing stored fails for its own shape), params the
 * service does not reserve, models whose provider is configured. All problems are reported
 * together, as one 422.
 */
export function checkVersionContent(
  input: VersionInput,
  isModelConfigured: (model: string) => boolean,
  limits: RenderLimits,
  /** The model config already checked (off the event loop: modelConfigOffLoop.ts); else checked here. */
  modelCheck: ModelConfigCheck = checkModelConfig(input),
): {
  template: CompiledTemplate | null;
  messages: CompiledMessage[] | null;
  variables: string[];
  declared: Declarations | null;
  modelConfig: ModelConfig | null;
} {
  const errors: Issue[] = [];
  const compile = (source: string, path: (string | number)[]): CompiledTemplate | null => {
    try {
      return compileTemplate(source);
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      errors.push(problem(path, error.message));
      return null;
    }
  };
  if ((input.template === undefined) === (input.messages === undefined)) {
    errors.push(problem([], 'a version needs exactly one of template (text prompt) or messages (chat prompt)'));
  }
  // A blank prompt would be served (and labelled production) as "": refused, as a chat prompt whose every message is blank.
  if (input.template !== undefined && input.template.trim() === '') {
    errors.push(problem(['template'], 'the template is empty: a prompt needs some text to send'));
  }
  if (input.messages !== undefined && input.messages.length > 0 && input.messages.every((m) => isBlank(m.content))) {
    errors.push(problem(['messages'], "every message's content is empty: a prompt needs some text to send"));
  }
  const template = input.template === undefined ? null : compile(input.template, ['template']);
  const messages = input.messages?.map((m, i) => compileMessage(m, compile, i));
  const compiledOk = (m: NonNullable<typeof messages>[number]) => (m.parts === null ? [m.template] : m.parts.map((p) => p.ok));
  const compiled = [template, ...(messages ?? []).flatMap(compiledOk)].filter((t): t is CompiledTemplate => t !== null);
  if (input.messages !== undefined) errors.push(...checkImageUrls(input.messages));
  const chars = compiled.reduce((sum, t) => sum + t.source.length, 0);
  const where = input.template !== undefined ? ['template'] : ['messages'];
  if (chars > MAX_VERSION_TEMPLATE_CHARS) {
    errors.push(problem(where, `templates must total at most ${MAX_VERSION_TEMPLATE_CHARS} characters (got ${chars})`));
  } else {
    const nodes = compiled.reduce((sum, t) => sum + t.nodeCount, 0);
    const textBytes = compiled.reduce((sum, t) => sum + t.textBytes, 0);
    if (nodes > limits.maxSteps) errors.push(problem(where, `templates have ${nodes} parts, more than one render may take (${limits.maxSteps})`));
    if (textBytes > limits.maxBytes)
      errors.push(problem(where, `templates hold ${textBytes} bytes of text, more than one render may write (${limits.maxBytes})`));
  }
  for (const key of Object.keys(input.params ?? {})) {
    if (RESERVED_PARAMS.includes(key)) errors.push(problem(['params', key], `'${key}' is set by the service and cannot be a param`));
  }
  if (input.params && JSON.stringify(input.params).length > MAX_PARAMS_JSON) {
    errors.push(problem(['params'], `params must serialise to at most ${MAX_PARAMS_JSON} bytes`));
  }
  const models: Array<[string, (string | number)[]]> = [];
  if (input.model != null) models.push([input.model, ['model']]);
  for (const [i, m] of (input.fallbacks ?? []).entries()) models.push([m, ['fallbacks', i]]);
  for (const [model, path] of models) {
    if (!isModelConfigured(model)) errors.push(problem(path, `provider '${model.split('/')[0]}' is not configured`));
  }
  const model = modelCheck;
  // Every pattern of the version (schemas and typed variables) is compiled against one budget.
  const patterns = new PatternBudget();
  patterns.used = model.patternsUsed;
  errors.push(...model.issues);
  const variables = new Set<string>();
  for (const t of compiled) for (const v of t.variables) variables.add(v);
  // Declarations are checked against the templates only once those compiled: else every name would read as unused.
  if (input.variables !== undefined && errors.length === 0) {
    const { used, dotted } = namesUsed(compiled);
    for (const issue of checkDeclarations(input.variables, used, dotted, patterns)) errors.push({ ...issue, path: ['variables', ...issue.path] });
  }
  if (errors.length > 0) throw new Invalid(errors);
  return {
    template,
    messages: messages ? messages.map((m) => ({ role: m.role, template: m.template, parts: m.parts?.map(({ ok: _ok, ...part }) => part) ?? null })) : null,
    variables: [...variables],
    declared: input.variables === undefined ? null : normaliseDeclarations(input.variables),
    modelConfig: Object.keys(model.config).length === 0 ? null : model.config,
  };
}

import { HttpError, ValidationFailed } from '../../http/httpError.js';
import { joinMessages } from '../../providers/echo.js';
import type { PromptCache } from './promptCache.js';
import { RenderBudget, renderTemplate, type CompiledTemplate, type RenderLimits } from './template.js';
import type { ChatRole, CompiledVersion } from './versionContent.js';

export interface RenderedMessage {
  role: ChatRole;
  content: string;
}

/** The experiment variant a request is served, decided (and stored) by the experiments module. */
export interface VariantAssignment {
  experimentId: string;
  variant: string;
  version: number;
}

/**
 * Decides whether an experiment applies to a call. Throws the contract's 422 when an experiment
 * runs and the caller gave no user; resolves only once a new assignment is committed.
 */
export interface ExperimentRouter {
  route(projectId: string, promptId: string, externalUserId: string | null, body: unknown): Promise<VariantAssignment | null> | null;
}


export interface ServedPrompt {
  version: CompiledVersion;
  experimentId: string | null;
  variant: string | null;
}

export interface RenderedPrompt {
  messages: RenderedMessage[];
  /** Text prompts: the rendered text; chat prompts: `"{role}: {content}"` blocks separated by a blank line. */
  text: string;
}

export const promptNotFound = (promptId: string) => new HttpError(404, `Prompt '${promptId}' not found`);

/** Picks the version a call is served: the experiment's variant when one applies, else production/latest. */
export async function resolveServedPrompt(
  cache: PromptCache,
  experiments: ExperimentRouter,
  projectId: string,
  promptId: string,
  externalUserId: string | null,
  body: unknown,
): Promise<ServedPrompt> {
  if (!cache.exists(projectId, promptId)) throw promptNotFound(promptId);
  const assignment = await experiments.route(projectId, promptId, externalUserId, body);
  const version = cache.served(projectId, promptId, assignment?.version);
  if (version === null) throw new HttpError(404, `Prompt '${promptId}' has no version to serve`);
  return { version, experimentId: assignment?.experimentId ?? null, variant: assignment?.variant ?? null };
}

/** The variable that sets each render limit, named in the 422 so an operator knows what to raise. */
const LIMIT_NAMES = { bytes: 'PROMPTLINE_RENDER_MAX_BYTES', steps: 'PROMPTLINE_RENDER_MAX_STEPS' } as const;

/**
 * Renders every template of a version under one budget; each missing variable is one 422 item
 * (contract.md §1), and a render over budget is one 422 naming the limit.
 */
export function renderVersion(version: CompiledVersion, inputs: Record<string, unknown>, limits: RenderLimits): RenderedPrompt {
  const budget = new RenderBudget(limits);
  const missing = new Set<string>();
  const render = (template: CompiledTemplate) => {
    if (budget.exceeded !== null) return '';
    const result = renderTemplate(template, inputs, budget);
    if (result.ok) return result.text;
    if ('missing' in result) result.missing.forEach((name) => missing.add(name));
    return '';
  };
  const messages: RenderedMessage[] = version.messages
    ? version.messages.map((m) => ({ role: m.role, content: render(m.template) }))
    : [{ role: 'user', content: render(version.template!) }];
  if (budget.exceeded !== null) {
    const why = budget.exceeded === 'bytes'
      ? `the rendered prompt would exceed ${limits.maxBytes} bytes (${LIMIT_NAMES.bytes})`
      : `rendering would take more than ${limits.maxSteps} steps (${LIMIT_NAMES.steps}): the inputs repeat sections too often`;
    throw new ValidationFailed([{ type: 'value_error', loc: ['body', 'inputs'], msg: `Value error, ${why}`, input: inputs, ctx: { error: why } }]);
  }
  if (missing.size > 0) {
    throw new ValidationFailed(
      [...missing].map((name) => ({ type: 'missing', loc: ['body', 'inputs', name], msg: 'Field required', input: inputs })),
    );
  }
  return { messages, text: version.messages ? joinMessages(messages) : messages[0]!.content };
}

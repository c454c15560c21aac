import { HttpError, ValidationFailed } from '../../http/httpError.js';
import { joinMessages } from '../../providers/echo.js';
import type { PromptCache } from './promptCache.js';
import { renderTemplate } from './template.js';
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

/** Renders every template of a version; each missing variable is one 422 item (contract.md §1). */
export function renderVersion(version: CompiledVersion, inputs: Record<string, unknown>): RenderedPrompt {
  const missing = new Set<string>();
  const render = (template: Parameters<typeof renderTemplate>[0]) => {
    const result = renderTemplate(template, inputs);
    if (result.ok) return result.text;
    result.missing.forEach((name) => missing.add(name));
    return '';
  };
  const messages: RenderedMessage[] = version.messages
    ? version.messages.map((m) => ({ role: m.role, content: render(m.template) }))
    : [{ role: 'user', content: render(version.template!) }];
  if (missing.size > 0) {
    throw new ValidationFailed(
      [...missing].map((name) => ({ type: 'missing', loc: ['body', 'inputs', name], msg: 'Field required', input: inputs })),
    );
  }
  return { messages, text: version.messages ? joinMessages(messages) : messages[0]!.content };
}

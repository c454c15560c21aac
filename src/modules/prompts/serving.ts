import { joinMessages, type ChatMessage, type ContentPart } from '../../lib/chatMessage.js';
import { Invalid, invalid, missingInputs, notFound } from '../../lib/errors.js';
import type { PromptCache } from './promptCache.js';
import type { GetPromptInput, GetPromptAnswer, RenderAnswer } from './prompts.schemas.js';
import { RenderBudget, renderTemplate, type CompiledTemplate, type RenderLimits } from './template.js';
import type { CompiledVersion } from './versionContent.js';
import { checkRenderedUrl, type CompiledMessage } from './messageContent.js';

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
  route(projectId: string, promptId: string, externalUserId: string | null): Promise<VariantAssignment | null>;
  /** A call of the user assigned this variant failed to render it: resolves once that error of the variant is committed. */
  renderFailed(projectId: string, assignment: VariantAssignment, externalUserId: string): Promise<void>;
}

export interface ServedPrompt {
  version: CompiledVersion;
  experimentId: string | null;
  variant: string | null;
  /** The caller's external_user_id (null: none given). */
  user: string | null;
}

export interface RenderedPrompt {
  messages: ChatMessage[];
  /** Text prompts: the rendered text; chat prompts: `"{role}: {content}"` blocks separated by a blank line. */
  text: string;
}

const promptNotFound = (promptId: string) => notFound(`Prompt '${promptId}' not found`);

/** The variable that sets each render limit, named in the 422 so an operator knows what to raise. */
const LIMIT_NAMES = { bytes: 'PROMPTLINE_RENDER_MAX_BYTES', steps: 'PROMPTLINE_RENDER_MAX_STEPS' } as const;

/**
 * Checks the inputs against the version's typed variables (filling optional ones' defaults), then
 * renders every template of a version under one budget; each missing variable is one 422 issue
 * (one item per variable, as FastAPI lists them), and a render over budget is one 422 naming the limit.
 */
function renderVersion(version: CompiledVersion, sent: Record<string, unknown>, limits: RenderLimits): RenderedPrompt {
  // Typed variables first: a required one absent or a value breaking its rules is the 422, before any work.
  const inputs = version.inputChecks === null ? sent : version.inputChecks.apply(sent);
  const budget = new RenderBudget(limits);
  const missing = new Set<string>();
  const render = (template: CompiledTemplate) => {
    if (budget.exceeded !== null) return '';
    const result = renderTemplate(template, inputs, budget);
    if (result.ok) return result.text;
    if ('missing' in result) for (const name of result.missing) missing.add(name);
    return '';
  };
  const urls: Array<[string, CompiledTemplate]> = [];
  const renderMessage = (m: CompiledMessage): ChatMessage => {
    if (m.template !== null) return { role: m.role, content: render(m.template) };
    const parts = m.parts!.map((p): ContentPart => {
      if (p.type === 'text') return { type: 'text', text: render(p.template) };
      const url = render(p.url);
      urls.push([url, p.url]);
      return { type: 'image_url', image_url: p.detail === undefined ? { url } : { url, detail: p.detail } };
    });
    return { role: m.role, content: parts };
  };
  const messages: ChatMessage[] = version.messages ? version.messages.map(renderMessage) : [{ role: 'user', content: render(version.template!) }];
  if (budget.exceeded !== null) {
    throw invalid(
      'body',
      ['inputs'],
      budget.exceeded === 'bytes'
        ? `the rendered prompt would exceed ${limits.maxBytes} bytes (${LIMIT_NAMES.bytes})`
        : `rendering would take more than ${limits.maxSteps} steps (${LIMIT_NAMES.steps}): the inputs repeat sections too often`,
    );
  }
  if (missing.size > 0) throw missingInputs([...missing]);
  for (const [url, template] of urls) checkRenderedUrl(url, template);
  return { messages, text: version.messages ? joinMessages(messages) : (messages[0]!.content as string) };
}

/**
 * Told of every call to a prompt that exists (after the key and the body were accepted, before the
 * experiment and the render, so calls that fail there count too): the summary of what callers send.
 * Must stay as cheap as a Map increment: it runs on every runtime call.
 */
export type CallObserver = (projectId: string, promptId: string, inputs: Record<string, unknown>, withUserId: boolean) => void;

/**
 * What the runtime endpoints serve: the version a call gets (an experiment's variant when one
 * applies, else production, else the latest), rendered with the caller's inputs.
 */
export function createServingService(cache: PromptCache, experiments: ExperimentRouter, limits: RenderLimits, observeCall: CallObserver = () => undefined) {
  async function resolve(projectId: string, promptId: string, externalUserId: string | null, inputs: Record<string, unknown>): Promise<ServedPrompt> {
    // One cache lookup per call: the entry found here is the one served from.
    const entry = await cache.entry(projectId, promptId);
    if (entry === null) throw promptNotFound(promptId);
    observeCall(projectId, promptId, inputs, externalUserId !== null);
    const assignment = await experiments.route(projectId, promptId, externalUserId);
    const version = await cache.served(projectId, promptId, entry, assignment?.version);
    if (version === null) throw notFound(`Prompt '${promptId}' has no version to serve`);
    return { version, experimentId: assignment?.experimentId ?? null, variant: assignment?.variant ?? null, user: externalUserId };
  }

  /**
   * Renders what was served. A render that fails (422) for a user an experiment assigned is also
   * counted as an error of their variant before the 422 goes out, so a variant whose template
   * callers cannot fill reads as failing, not as "no detectable difference". A successful render
   * costs nothing more.
   */
  async function renderServed(projectId: string, served: ServedPrompt, inputs: Record<string, unknown>): Promise<RenderedPrompt> {
    try {
      return renderVersion(served.version, inputs, limits);
    } catch (error) {
      if (error instanceof Invalid && served.experimentId !== null && served.variant !== null && served.user !== null) {
        const assignment = { experimentId: served.experimentId, variant: served.variant, version: served.version.version };
        await experiments.renderFailed(projectId, assignment, served.user);
      }
      throw error;
    }
  }

  /** Any version of a live prompt, as it would be served (the playground tries versions before they are). */
  async function chosenVersion(projectId: string, promptId: string, number: number): Promise<CompiledVersion> {
    const entry = await cache.entry(projectId, promptId);
    if (entry === null) throw promptNotFound(promptId);
    const version = await cache.served(projectId, promptId, entry, number);
    if (version === null) throw notFound(`Version ${number} of prompt '${promptId}' not found`);
    return version;
  }

  return {
    /** Throws the prompt's 404 unless it exists, live, in the project (an outcome must name a real prompt). */
    async requirePrompt(projectId: string, promptId: string): Promise<void> {
      if (!(await cache.exists(projectId, promptId))) throw promptNotFound(promptId);
    },
    resolve,
    chosenVersion,
    render: (version: CompiledVersion, inputs: Record<string, unknown>) => renderVersion(version, inputs, limits),
    renderServed,
    /** POST /get_prompt. */
    async getPrompt(projectId: string, input: GetPromptInput): Promise<GetPromptAnswer> {
      const inputs = input.inputs ?? {};
      const served = await resolve(projectId, input.prompt_id, input.external_user_id ?? null, inputs);
      const rendered = await renderServed(projectId, served, inputs);
      return {
        prompt_text: rendered.text,
        variant_assigned: served.variant,
        experiment_id: served.experimentId,
        prompt_version: served.version.version,
        ...(served.version.kind === 'chat' ? { messages: rendered.messages } : {}),
      };
    },
    /** POST /prompts/{id}/versions/{v}/render: one chosen version rendered, nothing served, assigned or stored. */
    async renderChosen(projectId: string, promptId: string, number: number, inputs: Record<string, unknown>): Promise<RenderAnswer> {
      const rendered = renderVersion(await chosenVersion(projectId, promptId, number), inputs, limits);
      return { prompt_id: promptId, version: number, prompt_text: rendered.text, messages: rendered.messages };
    },
  };
}

export type ServingService = ReturnType<typeof createServingService>;

import type { Answer, TestApp } from './harness.js';

/**
 * Named resources a test needs as a precondition, made through the API as a client would (after
 * Unkey's API harness, which seeds named resources). Each fixture checks its own calls: a setup
 * that the API refuses fails right there, naming the fixture and the answer, instead of surfacing
 * later as a puzzling assertion about something else.
 */

/** A later version's body for POST /prompts/{id}/versions; a string is its template. */
type VersionSpec = string | Record<string, unknown>;

interface PromptSpec {
  /** Default 'p'. */
  prompt_id?: string;
  /** Default 'Hi {{name}}' (none when `messages` is given). */
  template?: string;
  messages?: { role: string; content: string }[];
  model?: string;
  params?: Record<string, unknown>;
  fallbacks?: string[];
  /** Typed variables (declarations by name). */
  variables?: Record<string, unknown>;
  labels?: string[];
  description?: string;
  /** Versions 2, 3, … made after the first. */
  versions?: VersionSpec[];
  /** The admin key to make it with (another project's, say); default the bootstrap admin key. */
  key?: string;
}

interface GivenPrompt {
  prompt_id: string;
  /** The newest version made. */
  version: number;
}

interface ExperimentSpec {
  /** Default 'exp'. */
  experiment_id?: string;
  /** Default 'p'. */
  prompt_id?: string;
  /**
   * Each variant's version by key, in order (the first is the control), or the API's own list (for
   * weights). Default { a: 1, b: 2 }.
   */
  variants?: Record<string, number> | { key: string; version: number; weight?: number }[];
  metrics?: Record<string, unknown>[];
  primary_metric?: Record<string, unknown>;
  cuped?: boolean;
  target_mde?: number;
  /** ab (default), rollout or bandit; a bandit's settings. */
  type?: string;
  bandit?: Record<string, unknown>;
  /** Started after it is made (default false: a draft). */
  start?: boolean;
  key?: string;
}

/** The experiment as POST /experiments (or /start, when started) answered it. */
type GivenExperiment = { experiment_id: string; status: string } & Record<string, unknown>;

function made(fixture: string, call: string, res: Answer, expected: number): Answer {
  if (res.status !== expected) throw new Error(`${fixture}: ${call} answered ${res.status}, not ${expected}: ${res.text}`);
  return res;
}

export async function givenPrompt(t: TestApp, spec: PromptSpec = {}): Promise<GivenPrompt> {
  const { versions = [], key, ...fields } = spec;
  const body = { prompt_id: 'p', ...(fields.messages === undefined ? { template: 'Hi {{name}}' } : {}), ...fields };
  const fixture = `givenPrompt('${body.prompt_id}')`;
  const as = key === undefined ? {} : { key };
  made(fixture, 'POST /prompts', await t.request('POST', '/prompts', { ...as, body }), 201);
  let version = 1;
  for (const next of versions) {
    const url = `/prompts/${encodeURIComponent(body.prompt_id)}/versions`;
    const res = await t.request('POST', url, { ...as, body: typeof next === 'string' ? { template: next } : next });
    version = made(fixture, `POST ${url}`, res, 201).json.version;
  }
  return { prompt_id: body.prompt_id, version };
}

export async function givenExperiment(t: TestApp, spec: ExperimentSpec = {}): Promise<GivenExperiment> {
  const { start = false, key, variants = { a: 1, b: 2 }, ...fields } = spec;
  const body = {
    experiment_id: 'exp',
    prompt_id: 'p',
    variants: Array.isArray(variants) ? variants : Object.entries(variants).map(([name, version]) => ({ key: name, version })),
    ...fields,
  };
  const fixture = `givenExperiment('${body.experiment_id}')`;
  const as = key === undefined ? {} : { key };
  let experiment = made(fixture, 'POST /experiments', await t.request('POST', '/experiments', { ...as, body }), 201).json;
  if (start) {
    const url = `/experiments/${encodeURIComponent(body.experiment_id)}/start`;
    experiment = made(fixture, `POST ${url}`, await t.request('POST', url, as), 200).json;
  }
  return experiment;
}

interface TrafficSpec {
  prompt_id: string;
  /** The variant that converts clearly more often (45% of its users against 20% elsewhere). */
  winner: string;
  /** The primary metric's event type (a success_rate); default 'signup'. */
  event_type?: string;
  /** Default 200: enough for a "better" verdict at that difference. */
  users?: number;
  /** Inputs each /get_prompt sends; default { name: 'Ada' }. */
  inputs?: Record<string, unknown>;
  /** Users are `${users_prefix}-0`, `-1`, …; default the prompt id (give another for a second experiment on the prompt). */
  users_prefix?: string;
  key?: string;
}

/**
 * Users served through /get_prompt, each with one outcome of the event type: the winner's users
 * convert 45% of the time, everybody else's 20% (by each user's rank in their variant, so the same
 * every run). An experiment whose primary metric is that event type then decides "ship" the winner.
 */
export async function givenWinningTraffic(t: TestApp, spec: TrafficSpec): Promise<Record<string, number>> {
  const { prompt_id, winner, event_type = 'signup', users = 200, inputs = { name: 'Ada' }, users_prefix = prompt_id, key } = spec;
  const as = key === undefined ? {} : { key };
  const byVariant: Record<string, number> = {};
  for (let i = 0; i < users; i++) {
    const user = `${users_prefix}-${i}`;
    const served = made(
      'givenWinningTraffic',
      'POST /get_prompt',
      await t.request('POST', '/get_prompt', { ...as, body: { prompt_id, external_user_id: user, inputs } }),
      200,
    );
    const variant = served.json.variant_assigned as string;
    const rank = (byVariant[variant] ?? 0) + 1;
    byVariant[variant] = rank;
    const converts = variant === winner ? rank % 20 < 9 : rank % 20 < 4;
    const body = { prompt_id, external_user_id: user, event_type, is_success: converts };
    made('givenWinningTraffic', 'POST /track_outcome', await t.request('POST', '/track_outcome', { ...as, body }), 200);
  }
  return byVariant;
}

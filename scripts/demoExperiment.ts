/**
 * A small, deterministic experiment with real traffic, made through the public API only: the
 * README's screenshot and the console's whole-loop browser test both start from it.
 *
 * The prompt `welcome` has two versions (the second is warmer); the experiment `welcome-warmth`
 * splits users 50/50 and is judged on signups (primary), regenerations (lower is better) and run
 * complaints (guardrail, lower is better). Users of the warm variant sign up about twice as often
 * and complain no more, so it ships.
 */
export interface DemoClient {
  origin: string;
  adminKey: string;
}

export const DEMO_PROMPT = 'welcome';
export const DEMO_EXPERIMENT = 'welcome-warmth';

async function call(client: DemoClient, method: string, path: string, body?: unknown, key = client.adminKey): Promise<Record<string, unknown>> {
  const res = await fetch(`${client.origin}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/** The prompt with its two versions (v1 labelled production). */
export async function createDemoPrompt(client: DemoClient): Promise<void> {
  await call(client, 'POST', '/prompts', {
    prompt_id: DEMO_PROMPT,
    description: 'The first line a new user reads',
    template: 'Write a one-line welcome for {{name}}.',
    model: 'echo/echo',
    labels: ['production'],
  });
  await call(client, 'POST', `/prompts/${DEMO_PROMPT}/versions`, {
    template: 'Write a warm, one-line welcome for {{name}}, who just joined {{team}}.',
    model: 'echo/echo',
    commit_message: 'warmer, and names the team',
  });
}

/** The experiment as a draft: version 1 against version 2, with declared metrics. */
export async function createDemoExperiment(client: DemoClient): Promise<void> {
  await call(client, 'POST', '/experiments', {
    experiment_id: DEMO_EXPERIMENT,
    name: 'Warmer welcome',
    hypothesis: 'A warmer first line makes more new users sign up',
    prompt_id: DEMO_PROMPT,
    variants: [
      { key: 'control', version: 1 },
      { key: 'warm', version: 2 },
    ],
    metrics: [
      { event_type: 'signup', kind: 'success_rate', role: 'primary' },
      { event_type: 'regenerate', kind: 'mean', role: 'secondary', direction: 'lower' },
      { event_type: 'complaint', kind: 'success_rate', role: 'guardrail', direction: 'lower' },
    ],
  });
}

/**
 * `users` users through the runtime API, `concurrency` at a time: each runs the prompt once; in the
 * control every 5th signs up, in `warm` every 2nd; every 10th complains, and some regenerate. Returns the users per variant.
 */
export async function driveDemoTraffic(client: DemoClient, users: number, concurrency = 16): Promise<Record<string, number>> {
  const runtime = (await call(client, 'POST', '/keys', { name: `demo-traffic-${Date.now()}`, role: 'runtime' })).key as string;
  const perVariant: Record<string, number> = {};
  const oneUser = async (i: number) => {
    const user = `demo-user-${i}`;
    const run = await call(
      client,
      'POST',
      '/run_prompt',
      { prompt_id: DEMO_PROMPT, inputs: { name: `User ${i}`, team: 'Research' }, external_user_id: user },
      runtime,
    );
    const variant = String(run.variant_assigned);
    const rank = (perVariant[variant] ?? 0) + 1;
    perVariant[variant] = rank;
    const signsUp = rank % (variant === 'warm' ? 2 : 5) === 0;
    await call(client, 'POST', '/track_outcome', { prompt_run_id: run.run_id, prompt_id: DEMO_PROMPT, event_type: 'signup', is_success: signsUp }, runtime);
    if (rank % 10 === 0) {
      await call(client, 'POST', '/track_outcome', { prompt_id: DEMO_PROMPT, external_user_id: user, event_type: 'complaint', is_success: true }, runtime);
    }
    if (rank % 3 === 0) {
      await call(
        client,
        'POST',
        '/track_outcome',
        { prompt_id: DEMO_PROMPT, external_user_id: user, event_type: 'regenerate', numeric_value: 1 + (rank % 2) },
        runtime,
      );
    }
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < users) await oneUser(next++);
    }),
  );
  return perVariant;
}

/** Everything at once: prompt, experiment started, traffic. */
export async function seedDemo(client: DemoClient, users = 400): Promise<Record<string, number>> {
  await createDemoPrompt(client);
  await createDemoExperiment(client);
  await call(client, 'POST', `/experiments/${DEMO_EXPERIMENT}/start`);
  return driveDemoTraffic(client, users);
}

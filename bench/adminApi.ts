/** The admin key the benchmarks bootstrap their servers with, and the management calls they set up with. */
export const ADMIN_KEY = 'pl_a_bench-admin-key-0000000000000000';

export async function admin(origin: string, method: string, pathName: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${origin}${pathName}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${method} ${pathName} → ${res.status} ${await res.text()}`);
  return res.json();
}

/** The runtime benchmarks' prompts: `welcome` (production, no experiment) and `ab` (two versions, for an experiment). */
export async function givenBenchPrompts(origin: string): Promise<void> {
  await admin(origin, 'POST', '/prompts', { prompt_id: 'welcome', template: 'Write a one-line welcome for {{name}}.', labels: ['production'] });
  await admin(origin, 'POST', '/prompts', { prompt_id: 'ab', template: 'A: welcome {{name}}.' });
  await admin(origin, 'POST', '/prompts/ab/versions', { template: 'B: greet {{name}}.' });
}

/**
 * A running experiment on `ab` (versions 1 and 2), with CUPED on over two outcome metrics: each first
 * assignment also captures the user's covariate (one index seek), as a real experiment would.
 */
export async function givenBenchExperiment(origin: string): Promise<void> {
  await admin(origin, 'POST', '/experiments', {
    experiment_id: 'bench',
    prompt_id: 'ab',
    variants: [
      { key: 'a', version: 1 },
      { key: 'b', version: 2 },
    ],
    metrics: [
      { event_type: 'click', kind: 'success_rate', role: 'primary' },
      { event_type: 'rating', kind: 'mean', role: 'secondary' },
    ],
    cuped: true,
  });
  await admin(origin, 'POST', '/experiments/bench/start');
}

import { givenExperiment, givenPrompt } from './fixtures.js';
import type { TestApp } from './harness.js';

/**
 * One of each resource a route of the route table can name, made through the API, keyed by the
 * path parameter that names it: a prompt `p` (version 1, labelled production), a draft experiment
 * `exp` on it, a run, a read key, a dataset `ds` (version 1: one item), an evaluator `ev` (version 1),
 * an evaluation of `p` on `ds`
 * and a disabled webhook (the tests that use these make changes,
 * and nothing should be queued to a real address). Tests generated from the route table
 * (the authorization matrix, the unstorable-value cases) fill every path with these.
 */
export async function givenRouteFixtures(t: TestApp): Promise<Record<string, unknown>> {
  const fixtures: Record<string, unknown> = { prompt_id: 'p', version: 1, label: 'production', experiment_id: 'exp' };
  await givenPrompt(t, { prompt_id: 'p', template: 'Hi {{name}}', labels: ['production'] });
  await givenExperiment(t, {
    experiment_id: 'exp',
    prompt_id: 'p',
    variants: { a: 1, b: 1 },
  });
  fixtures.run_id = (await t.request('POST', '/run_prompt', { body: { prompt_id: 'p', inputs: { name: 'A' } } })).json.run_id;
  fixtures.key_id = (await t.request('POST', '/keys', { body: { name: 'victim', role: 'read' } })).json.key_id;
  fixtures.webhook_id = (
    await t.request('POST', '/webhooks', { body: { url: 'https://8.8.8.8/hook', events: ['prompt.label_moved'], enabled: false } })
  ).json.webhook_id;
  await t.request('POST', '/datasets', { body: { dataset_id: 'ds' } });
  await t.request('POST', '/datasets/ds/items', { body: { items: [{ inputs: { name: 'A' }, expected: 'Hi A' }] } });
  fixtures.dataset_id = 'ds';
  fixtures.item_id = (await t.request('GET', '/datasets/ds/items')).json.data[0].item_id;
  fixtures.upload_id = (await t.request('POST', '/datasets/ds/uploads')).json.upload_id;
  await t.request('POST', `/datasets/ds/uploads/${fixtures.upload_id}/items`, { body: { items: [{ inputs: { name: 'B' } }] } });
  await t.request('POST', '/evaluators', { body: { evaluator_id: 'ev', kind: 'exact_match' } });
  fixtures.evaluator_id = 'ev';
  fixtures.evaluation_id = (
    await t.request('POST', '/evaluations', { body: { prompt_id: 'p', versions: [1, 'production'], dataset_id: 'ds', evaluators: ['ev'] } })
  ).json.evaluation_id;
  return fixtures;
}

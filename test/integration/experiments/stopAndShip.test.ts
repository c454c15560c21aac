import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';

// Stopping an experiment with a winner can ship it: production moves to the winner's version in
// the same transaction as the stop, so the two never disagree.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await givenPrompt(t, { prompt_id: 'greet', template: 'A: hi {{name}}', labels: ['production'], versions: ['B: hello {{name}}'] });
});
afterAll(async () => t.cleanup());

async function runningExperiment(id: string): Promise<void> {
  await givenExperiment(t, {
    experiment_id: id,
    prompt_id: 'greet',
    variants: { cold: 1, warm: 2 },
    start: true,
  });
}
const production = async () => (await t.request('GET', '/prompts/greet')).json.labels.production;
const served = async () => (await t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', inputs: { name: 'Ada' } } })).json;

describe('POST /experiments/{id}/stop with ship', () => {
  it('refuses ship without a winner, and changes nothing', async () => {
    await runningExperiment('no-winner');
    const res = await t.request('POST', '/experiments/no-winner/stop', { body: { ship: true } });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'ship'],
        msg: 'Value error, ship needs a winner: name the variant whose version goes to production',
        input: true,
        ctx: { error: 'ship needs a winner: name the variant whose version goes to production' },
      },
    ]);
    expect((await t.request('GET', '/experiments/no-winner')).json.status).toBe('running');
    expect(await production()).toBe(1);
    await t.request('POST', '/experiments/no-winner/stop');
  });

  it('stops and moves production to the winner in one step; runtime calls serve it at once; shipping again is a 409', async () => {
    await runningExperiment('ship-it');
    const res = await t.request('POST', '/experiments/ship-it/stop', { body: { winner: 'warm', ship: true } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'stopped', winner: 'warm', shipped_version: 2 });
    expect(await production()).toBe(2);
    expect(await served()).toMatchObject({ prompt_text: 'B: hello Ada', prompt_version: 2, experiment_id: null });
    const again = await t.request('POST', '/experiments/ship-it/stop', { body: { winner: 'warm', ship: true } });
    expect(again.status).toBe(409);
    expect((await t.request('GET', '/experiments/ship-it')).json.shipped_version).toBe(2);
  });

  it('a stop without ship leaves production alone and says nothing was shipped', async () => {
    await t.request('PUT', '/prompts/greet/labels/production', { body: { version: 1 } });
    await runningExperiment('no-ship');
    const res = await t.request('POST', '/experiments/no-ship/stop', { body: { winner: 'warm' } });
    expect(res.json).toMatchObject({ status: 'stopped', winner: 'warm', shipped_version: null });
    expect(await production()).toBe(1);
  });

  it('an unknown winner is a 422 and ships nothing', async () => {
    await runningExperiment('bad-winner');
    const res = await t.request('POST', '/experiments/bad-winner/stop', { body: { winner: 'hot', ship: true } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ loc: ['body', 'winner'], input: 'hot' });
    expect(await production()).toBe(1);
    expect((await t.request('GET', '/experiments/bad-winner')).json.status).toBe('running');
  });
});

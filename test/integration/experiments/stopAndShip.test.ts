import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt, givenWinningTraffic } from '../../support/fixtures.js';

// Stopping an experiment with a winner can ship it: production moves to the winner's version in
// the same transaction as the stop, so the two never disagree. A ship the results do not back
// (nobody exposed, or the winner's decision is not "ship") is refused unless overridden with a reason.
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
    metrics: [{ event_type: 'signup', kind: 'success_rate', role: 'primary' }],
    start: true,
  });
}
const decisionOf = async (id: string, variant: string) =>
  (await t.request('GET', `/experiments/${id}/results`)).json.decisions.find((d: { variant: string }) => d.variant === variant);
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
    await givenWinningTraffic(t, { prompt_id: 'greet', winner: 'warm', users_prefix: 'ship-it' });
    expect(await decisionOf('ship-it', 'warm')).toMatchObject({ decision: 'ship' });
    const res = await t.request('POST', '/experiments/ship-it/stop', { body: { winner: 'warm', ship: true } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'stopped', winner: 'warm', shipped_version: 2 });
    expect(await production()).toBe(2);
    expect(await served()).toMatchObject({ prompt_text: 'B: hello Ada', prompt_version: 2, experiment_id: null });
    await t.request('PUT', '/prompts/greet/labels/production', { body: { version: 1 } });
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
    await t.request('POST', '/experiments/bad-winner/stop');
  });

  it('refuses (409) to ship an experiment nobody was exposed to, and changes nothing', async () => {
    await runningExperiment('unseen');
    const res = await t.request('POST', '/experiments/unseen/stop', { body: { winner: 'warm', ship: true } });
    expect(res.status).toBe(409);
    expect(res.json.detail).toContain("Experiment 'unseen' never had an exposure: no user was ever assigned a variant");
    expect(res.json.detail).toContain('"override": true with a "reason"');
    expect((await t.request('GET', '/experiments/unseen')).json.status).toBe('running');
    expect(await production()).toBe(1);
    await t.request('POST', '/experiments/unseen/stop');
  });

  it("refuses (409) a winner whose decision is not ship, quoting the decision's reason; control cannot ship against a ship decision", async () => {
    await runningExperiment('backwards');
    await givenWinningTraffic(t, { prompt_id: 'greet', winner: 'cold', users_prefix: 'backwards' }); // warm converts worse: roll back
    const warm = await decisionOf('backwards', 'warm');
    expect(warm.decision).toBe('rollback');
    const res = await t.request('POST', '/experiments/backwards/stop', { body: { winner: 'warm', ship: true } });
    expect(res.status).toBe(409);
    expect(res.json.detail).toBe(
      `Cannot ship 'warm': its decision is rollback, not ship: "${warm.reason}" To ship anyway, send "override": true with a "reason" (kept in the audit log).`,
    );
    expect(await production()).toBe(1);
    // Keeping control is what a rollback says: that ship is allowed (production already serves it).
    const kept = await t.request('POST', '/experiments/backwards/stop', { body: { winner: 'cold', ship: true } });
    expect(kept.json).toMatchObject({ status: 'stopped', winner: 'cold', shipped_version: 1 });

    await runningExperiment('forwards');
    await givenWinningTraffic(t, { prompt_id: 'greet', winner: 'warm', users_prefix: 'forwards' });
    const control = await t.request('POST', '/experiments/forwards/stop', { body: { winner: 'cold', ship: true } });
    expect(control.status).toBe(409);
    expect(control.json.detail).toMatch(/^Cannot ship control 'cold': the decision for variant 'warm' is ship: "Ship: /);
    await t.request('POST', '/experiments/forwards/stop');
  });

  it('an override needs ship and a reason (422), and then ships against the decision, with the reason in the audit log', async () => {
    await runningExperiment('overridden');
    const noReason = await t.request('POST', '/experiments/overridden/stop', { body: { winner: 'warm', ship: true, override: true } });
    expect(noReason.status).toBe(422);
    expect(noReason.json.detail).toEqual([{ type: 'missing', loc: ['body', 'reason'], msg: 'Field required', input: expect.anything() }]);
    const blank = await t.request('POST', '/experiments/overridden/stop', { body: { winner: 'warm', ship: true, override: true, reason: '   ' } });
    expect([blank.status, blank.json.detail[0].loc]).toEqual([422, ['body', 'reason']]);
    const noShip = await t.request('POST', '/experiments/overridden/stop', { body: { winner: 'warm', override: true, reason: 'why not' } });
    expect([noShip.status, noShip.json.detail[0].loc]).toEqual([422, ['body', 'override']]);
    const tooLong = await t.request('POST', '/experiments/overridden/stop', { body: { winner: 'warm', ship: true, override: true, reason: 'x'.repeat(501) } });
    expect([tooLong.status, tooLong.json.detail[0].loc]).toEqual([422, ['body', 'reason']]);
    expect((await t.request('GET', '/experiments/overridden')).json.status).toBe('running');

    const reason = 'Legal asked for the new wording today, whatever the numbers say.';
    const res = await t.request('POST', '/experiments/overridden/stop', { body: { winner: 'warm', ship: true, override: true, reason } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'stopped', winner: 'warm', shipped_version: 2 });
    expect(res.json.reason).toBeNull(); // the override's reason is the audit log's, not the experiment's (its reason is a rollout's end)
    expect(await production()).toBe(2);
    const { data } = (await t.request('GET', '/audit?target_id=overridden&limit=1')).json;
    expect(data[0]).toMatchObject({ action: 'experiment.stopped', after: { status: 'stopped', winner: 'warm', override: true, reason } });
    const moved = (await t.request('GET', '/audit?action=prompt.label_moved&limit=1')).json.data[0];
    expect(moved.after).toEqual({ label: 'production', version: 2, experiment_id: 'overridden', override: true, reason });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

/** PATCH /prompts/{id}: the "managed in Git" mark and the description (docs/management-api.md). */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await givenPrompt(t, { prompt_id: 'g', description: 'first', template: 'Hi {{name}}', labels: ['production'] });
});
afterAll(async () => t.cleanup());

describe('PATCH /prompts/{prompt_id}', () => {
  it('a new prompt is not managed in Git; the mark shows in every view of the prompt', async () => {
    expect((await t.request('GET', '/prompts/g')).json.managed_in_git).toBe(false);
    const res = await t.request('PATCH', '/prompts/g', { body: { managed_in_git: true } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ prompt_id: 'g', description: 'first', managed_in_git: true, labels: { production: 1 }, latest_version: 1 });
    expect((await t.request('GET', '/prompts/g')).json.managed_in_git).toBe(true);
    const listed = (await t.request('GET', '/prompts')).json.data.find((p: { prompt_id: string }) => p.prompt_id === 'g');
    expect(listed.managed_in_git).toBe(true);
  });

  it('changes the description alone (null clears it), leaving the mark as it was', async () => {
    expect((await t.request('PATCH', '/prompts/g', { body: { description: 'second' } })).json).toMatchObject({ description: 'second', managed_in_git: true });
    expect((await t.request('PATCH', '/prompts/g', { body: { description: null, managed_in_git: false } })).json).toMatchObject({
      description: null,
      managed_in_git: false,
    });
  });

  it('is audited as prompt.updated with the prompt before and after', async () => {
    await t.request('PATCH', '/prompts/g', { body: { managed_in_git: true } });
    const [entry] = (await t.request('GET', '/audit?action=prompt.updated&limit=1')).json.data;
    expect(entry).toMatchObject({ action: 'prompt.updated', target_type: 'prompt', target_id: 'g' });
    expect(entry.before.managed_in_git).toBe(false);
    expect(entry.after.managed_in_git).toBe(true);
  });

  it('leaves versions, labels and serving as they were', async () => {
    const served = await t.request('POST', '/get_prompt', { body: { prompt_id: 'g', inputs: { name: 'Ada' } } });
    expect(served.json).toMatchObject({ prompt_text: 'Hi Ada', prompt_version: 1 });
  });

  it('works on an archived prompt too (it stays readable)', async () => {
    await givenPrompt(t, { prompt_id: 'old', template: 'x' });
    await t.request('DELETE', '/prompts/old');
    const res = await t.request('PATCH', '/prompts/old', { body: { managed_in_git: true } });
    expect(res.status).toBe(200);
    expect(res.json.managed_in_git).toBe(true);
  });
});

describe('PATCH /prompts/{prompt_id}: errors', () => {
  it('an empty body → 422 asking for a field', async () => {
    const res = await t.request('PATCH', '/prompts/g', { body: {} });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([expect.objectContaining({ loc: ['body'], msg: expect.stringContaining('managed_in_git, description') })]);
  });

  it.each([
    ['a non-boolean mark', { managed_in_git: 'maybe' }, ['body', 'managed_in_git']],
    ['a description too long', { description: 'x'.repeat(2001) }, ['body', 'description']],
    ['an unknown field', { labels: ['x'] }, ['body', 'labels']],
  ])('%s → 422 at its location', async (_name, body, loc) => {
    const res = await t.request('PATCH', '/prompts/g', { body });
    expect(res.status).toBe(422);
    expect(res.json.detail.map((d: { loc: unknown[] }) => d.loc)).toContainEqual(loc);
  });

  it('an unknown prompt → 404', async () => {
    const res = await t.request('PATCH', '/prompts/nope', { body: { managed_in_git: true } });
    expect([res.status, res.json]).toEqual([404, { detail: "Prompt 'nope' not found" }]);
  });
});

describe('PATCH /prompts/{prompt_id}: security', () => {
  it('no key → 422 for the missing header; a bad key → 401', async () => {
    expect((await t.request('PATCH', '/prompts/g', { key: null, body: { managed_in_git: true } })).status).toBe(422);
    expect((await t.request('PATCH', '/prompts/g', { key: 'pl_a_wrong', body: { managed_in_git: true } })).status).toBe(401);
  });

  it('a read or runtime key → 403, and nothing changes', async () => {
    const before = (await t.request('GET', '/prompts/g')).json.managed_in_git;
    for (const role of ['read', 'runtime'] as const) {
      const res = await t.request('PATCH', '/prompts/g', { key: await t.keyFor(role), body: { managed_in_git: !before } });
      expect([role, res.status]).toEqual([role, 403]);
    }
    expect((await t.request('GET', '/prompts/g')).json.managed_in_git).toBe(before);
  });

  it("another project's admin key → 404, and the prompt is untouched", async () => {
    const before = (await t.request('GET', '/prompts/g')).json;
    const res = await t.request('PATCH', '/prompts/g', { key: await t.keyFor('admin', 'elsewhere'), body: { managed_in_git: !before.managed_in_git } });
    expect([res.status, res.json]).toEqual([404, { detail: "Prompt 'g' not found" }]);
    expect((await t.request('GET', '/prompts/g')).json).toEqual(before);
  });
});

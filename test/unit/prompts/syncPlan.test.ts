import { describe, expect, it } from 'vitest';
import { changes, conflictsOf, planPrompt, type FileFacts, type PromptFacts, type VersionFacts } from '../../../src/modules/prompts/syncPlan.js';

const PATH = 'prompts/p.prompt.yaml';
const file = (over: Partial<FileFacts> = {}): FileFacts => ({ path: PATH, promptId: 'p', hash: 'h-file', labels: [], required: ['name'], optional: [], ...over });
const version = (n: number, over: Partial<VersionFacts> = {}): VersionFacts => ({ version: n, hash: `h${n}`, sourcePath: null, required: ['name'], optional: [], ...over });
const server = (versions: VersionFacts[], labels: Record<string, number> = {}, archived = false): PromptFacts => ({ versions, labels, archived });

describe('planPrompt', () => {
  it('creates a missing prompt with its labels', () => {
    const plan = planPrompt(file({ labels: ['production'] }), undefined, undefined);
    expect(plan).toMatchObject({ action: 'create_prompt', version: 1, label_moves: [{ label: 'production', from: null, to: 1 }], conflicts: [], breaking: [] });
    expect(changes(plan)).toBe(true);
  });

  it.each<[string, FileFacts, PromptFacts, Partial<ReturnType<typeof planPrompt>>]>([
    ['same content as the latest: unchanged', file({ hash: 'h2' }), server([version(1), version(2)]), { action: 'unchanged', version: 2, label_moves: [] }],
    [
      "same content as the version the file's label is on",
      file({ hash: 'h1', labels: ['production'] }),
      server([version(1), version(2)], { production: 1 }),
      { action: 'unchanged', version: 1, label_moves: [] },
    ],
    [
      'same content as the latest, label elsewhere: the label moves',
      file({ hash: 'h2', labels: ['production'] }),
      server([version(1), version(2)], { production: 1 }),
      { action: 'unchanged', version: 2, label_moves: [{ label: 'production', from: 1, to: 2 }] },
    ],
    [
      'an old version has the content: still a new version (a revert is a change)',
      file({ hash: 'h1' }),
      server([version(1), version(2)], { production: 2 }),
      { action: 'new_version', version: 3, label_moves: [] },
    ],
    [
      'new content with a label',
      file({ labels: ['staging'] }),
      server([version(1)], { staging: 1 }),
      { action: 'new_version', version: 2, label_moves: [{ label: 'staging', from: 1, to: 2 }] },
    ],
  ])('%s', (_name, f, s, expected) => expect(planPrompt(f, s, { latest_version: 2, labels: s.labels })).toMatchObject(expected));

  it.each<[string, FileFacts, PromptFacts, string[], number | null]>([
    ['a new required variable on production', file({ labels: ['production'], required: ['name', 'tier'] }), server([version(1)], { production: 1 }), ['tier'], 2],
    ['the latest serves when production is unset', file({ required: ['name', 'tier'] }), server([version(1)]), ['tier'], 2],
    ['production elsewhere: the new version serves nothing', file({ labels: ['staging'], required: ['tier'] }), server([version(1)], { production: 1 }), [], 1],
    ['an optional variable stays nothing new', file({ labels: ['production'], required: ['name'], optional: ['tier'] }), server([version(1)], { production: 1 }), [], 2],
  ])('%s', (_name, f, s, newRequired, after) => {
    const plan = planPrompt(f, s, { latest_version: 1, labels: s.labels });
    expect(plan.served).toEqual({ before: 1, after, new_required: newRequired });
    expect(plan.breaking.length).toBe(newRequired.length > 0 ? 1 : 0);
  });

  it('a removed optional variable is breaking', () => {
    const plan = planPrompt(file({ labels: ['production'] }), server([version(1, { optional: ['note'] })], { production: 1 }), { latest_version: 1, labels: { production: 1 } });
    expect(plan.breaking).toEqual(['version 2 no longer declares note, optional in version 1: callers may send it']);
  });
});

describe('conflictsOf', () => {
  const base = { latest_version: 2, labels: { production: 2 } };
  it.each<[string, PromptFacts, typeof base | undefined, string[]]>([
    ['nothing since the pull', server([version(1), version(2)], { production: 2 }), base, []],
    ['a version made by a push of this file', server([version(1), version(2), version(3, { sourcePath: PATH })], { production: 3 }), base, []],
    [
      'a version made elsewhere',
      server([version(1), version(2), version(3, { sourcePath: 'other.yaml' })], { production: 2 }),
      base,
      ['version 3 was created on the server since the last pull'],
    ],
    ['a label moved back', server([version(1), version(2)], { production: 1 }), base, ['label production was moved from version 2 to version 1 on the server since the last pull']],
    ['a label added', server([version(1), version(2)], { production: 2, beta: 1 }), base, ['label beta was moved onto version 1 on the server since the last pull']],
    ['a label removed', server([version(1), version(2)], {}), base, ['label production was removed on the server since the last pull']],
    ['never pulled', server([version(1)]), undefined, ['the prompt exists on the server but was never pulled here: pull first']],
    ['archived', server([version(1), version(2)], { production: 2 }, true), base, ['the prompt is archived on the server']],
  ])('%s', (_name, s, b, expected) => expect(conflictsOf(PATH, s, b)).toEqual(expected));
});

import { describe, expect, it } from 'vitest';
import { experimentTrafficNote, LABEL_PATTERN } from '../../../web/src/pages/prompt/impact.js';

describe("the console's label names agree with the API's pattern", () => {
  it.each([
    ['staging', true],
    ['canary_2-b', true],
    ['a'.repeat(64), true],
    ['a'.repeat(65), false],
    ['Staging', false],
    ['with space', false],
    ['', false],
  ])('%s → %s', (name, ok) => expect(LABEL_PATTERN.test(name)).toBe(ok));
});

describe('what Promote says of a running experiment (as the router serves)', () => {
  const variants = [
    { key: 'a', version: 1, weight: 0.5 },
    { key: 'b', version: 3, weight: 0.5 },
  ];
  it('full coverage: the new version reaches nobody while it runs', () => {
    expect(experimentTrafficNote({ experiment_id: 'e', status: 'running', coverage: 1, variants }, 2)).toContain(
      'covers every user: they keep getting their variant\'s version, so v2 is served to nobody until the experiment is paused or stopped',
    );
  });
  it('partial coverage: the users outside it get the new version', () => {
    expect(experimentTrafficNote({ experiment_id: 'e', status: 'running', coverage: 0.25, variants }, 2)).toContain(
      "the users it covers (25%) keep getting their variant's version; the other users get v2",
    );
  });
});

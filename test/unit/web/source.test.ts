import { describe, expect, it } from 'vitest';
import { describeSource } from '../../../web/src/lib/format.js';

describe("describeSource: a version's source as the console writes it", () => {
  it.each([
    [{ path: 'prompts/x.prompt.yaml', commit: 'abc1234def5678', author: 'Ada' }, 'from prompts/x.prompt.yaml @ abc1234 by Ada'],
    [{ path: 'prompts/x.prompt.yaml', commit: 'abc12', author: null }, 'from prompts/x.prompt.yaml @ abc12'],
    [{ path: 'welcome.prompt.yaml', commit: null, author: null }, 'from welcome.prompt.yaml'],
    [{ path: 'p.yaml', commit: null, author: 'Grace Hopper' }, 'from p.yaml by Grace Hopper'],
  ])('%j → %s', (source, text) => expect(describeSource(source)).toBe(text));
});

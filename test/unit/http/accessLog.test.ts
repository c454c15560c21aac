import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../../src/http/accessLog.js';

describe('redactUrl', () => {
  it.each([
    ['/runs', '/runs'],
    ['/runs?prompt_id=welcome&limit=5', '/runs?prompt_id=welcome&limit=5'],
    ['/runs?prompt_run_id=run_0193f1c2a3b4c5d6e7f8091a2b3c4d5e', '/runs?prompt_run_id=run_0193f1c2a3b4c5d6e7f8091a2b3c4d5e'],
    ['/runs?api_key=abc', '/runs?api_key=[redacted]'],
    ['/runs?X-API-Key=abc&limit=2', '/runs?X-API-Key=[redacted]&limit=2'],
    ['/runs?token=t&access_token=u&password=p&sig=s', '/runs?token=[redacted]&access_token=[redacted]&password=[redacted]&sig=[redacted]'],
    ['/runs?q=pl_a_3kTq0x1mYwz', '/runs?q=[redacted]'],
    ['/runs?q=pl%5Fa%5F3kTq0x1mYwz', '/runs?q=[redacted]'],
    ['/runs?q=sk-proj-abc', '/runs?q=[redacted]'],
    ['/runs?q=eyJhbGciOiJIUzI1NiJ9.e30.x', '/runs?q=[redacted]'],
    ['/runs?flag&q=%E0%A4%A', '/runs?flag&q=%E0%A4%A'],
  ])('%s → %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });
});

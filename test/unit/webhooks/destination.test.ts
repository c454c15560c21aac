import { describe, expect, it } from 'vitest';
import { nonPublicRange, publicOnlyLookup, registrationProblem, urlFormProblem } from '../../../src/modules/webhooks/destination.js';

describe('which addresses a webhook may reach', () => {
  it.each<[string, string | null]>([
    ['8.8.8.8', null],
    ['2606:4700::1111', null],
    ['::ffff:8.8.8.8', null],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'], // cloud metadata
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['2002:a00:1::', '6to4'], // could carry a private IPv4 address
  ])('%s → %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  it.each<[string, string | null]>([
    ['https://example.com/hooks', null],
    ['http://example.com:8080/a?b=c', null],
    ['example.com/hooks', 'not an absolute URL (e.g. https://example.com/hooks/promptline)'],
    ['ftp://example.com/', 'the scheme must be https or http, not ftp'],
    ['javascript:alert(1)', 'the scheme must be https or http, not javascript'],
    ['https://user:pw@example.com/', 'the URL must not carry a user name or password: verify the Promptline-Signature header instead'],
    ['https://example.com/#x', 'the URL must not have a #fragment (it is never sent)'],
    [`https://example.com/${'a'.repeat(2048)}`, 'the URL is longer than 2048 characters'],
  ])('the form of %s', (url, problem) => {
    expect(urlFormProblem(url)).toBe(problem);
  });

  it('refuses non-public destinations at registration, by address or by the name resolved now, unless allowed', async () => {
    expect(await registrationProblem('http://127.0.0.1:9/hook', false)).toBe(
      '127.0.0.1 is a loopback address: deliveries go to public addresses only (PROMPTLINE_WEBHOOKS_ALLOW_PRIVATE=on allows it)',
    );
    expect(await registrationProblem('http://[::1]/hook', false)).toMatch(/^::1 is a loopback address/);
    expect(await registrationProblem('http://169.254.169.254/latest/meta-data', false)).toMatch(/^169\.254\.169\.254 is a linkLocal address/);
    expect(await registrationProblem('http://localhost:9/hook', false)).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(await registrationProblem('http://127.0.0.1:9/hook', true)).toBeNull();
    expect(await registrationProblem('https://8.8.8.8/hook', false)).toBeNull();
    // A name that does not resolve (yet) is accepted: every delivery is checked again.
    expect(await registrationProblem('https://no-such-host.invalid/hook', false)).toBeNull();
  });

  it('refuses the connection when a name resolves to a non-public address, whichever lookup form Node asks for', async () => {
    for (const all of [false, true]) {
      const error = await new Promise<Error | null>((resolve) => publicOnlyLookup('localhost', { all }, (e) => resolve(e)));
      expect(error?.message).toMatch(/^localhost resolves to .*, a loopback address/);
    }
  });
});

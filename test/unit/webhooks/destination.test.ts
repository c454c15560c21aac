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
  ])('%s → %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  // IPv6 forms that carry an IPv4 address: judged by the address they carry, so none reaches
  // loopback, the private network or the metadata address through IPv6.
  it.each<[string, string, string | null]>([
    ['IPv4-compatible', '::7f00:1', 'loopback'], // http://[::127.0.0.1]/ as the URL parser writes it
    ['IPv4-compatible', '::127.0.0.1', 'loopback'],
    ['IPv4-compatible', '::a00:1', 'private'],
    ['IPv4-compatible', '::a9fe:a9fe', 'linkLocal'],
    ['IPv4-compatible', '::808:808', 'ipv4Compatible'], // deprecated (RFC 4291): never a real destination
    ['IPv4-mapped', '::ffff:7f00:1', 'loopback'],
    ['IPv4-mapped', '::ffff:a00:1', 'private'],
    ['IPv4-mapped', '::ffff:a9fe:a9fe', 'linkLocal'],
    ['IPv4-mapped', '::ffff:808:808', null],
    ['6to4', '2002:7f00:1::1', 'loopback'],
    ['6to4', '2002:a00:1::', 'private'],
    ['6to4', '2002:a9fe:a9fe::1', 'linkLocal'],
    ['6to4', '2002:808:808::1', null],
    ['NAT64', '64:ff9b::7f00:1', 'loopback'],
    ['NAT64', '64:ff9b::c0a8:101', 'private'],
    ['NAT64', '64:ff9b::a9fe:a9fe', 'linkLocal'],
    ['NAT64', '64:ff9b::808:808', null],
    ['NAT64 local use', '64:ff9b:1::808:808', 'nat64LocalUse'], // RFC 8215: where the IPv4 sits is the network's choice
    ['NAT64 local use', '64:ff9b:1:7f00:1::', 'nat64LocalUse'],
    // Teredo: server at bits 32-63, client in the last 32 bits XOR 0xffffffff.
    ['Teredo', '2001:0:808:808::80ff:fffe', 'loopback'], // client 127.0.0.1
    ['Teredo', '2001:0:808:808::f5ff:fffe', 'private'], // client 10.0.0.1
    ['Teredo', '2001:0:808:808::5601:5601', 'linkLocal'], // client 169.254.169.254
    ['Teredo', '2001:0:a00:1::f7f7:f7f7', 'private'], // server 10.0.0.1
    ['Teredo', '2001:0:808:808::f7f7:f7f7', null], // both 8.8.8.8
  ])('%s %s → %s', (_form, address, range) => {
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
    expect(await registrationProblem('http://[::127.0.0.1]:4991/', false)).toMatch(/^::7f00:1 is a loopback address/);
    expect(await registrationProblem('http://[64:ff9b::10.0.0.1]/hook', false)).toMatch(/^64:ff9b::a00:1 is a private address/);
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

  it('judges every resolved address by the IPv4 address it embeds', async () => {
    // getaddrinfo answers a numeric name with itself: the answers pass the same check as any name's.
    const lookup = (name: string) => new Promise<Error | null>((resolve) => publicOnlyLookup(name, { all: true }, (e) => resolve(e)));
    for (const [name, range] of [
      ['::7f00:1', 'loopback'],
      ['2002:a00:1::', 'private'],
      ['64:ff9b::a9fe:a9fe', 'linkLocal'],
      ['2001:0:808:808::80ff:fffe', 'loopback'],
    ]) {
      expect((await lookup(name!))?.message).toBe(
        `${name} is a ${range} address: deliveries go to public addresses only (PROMPTLINE_WEBHOOKS_ALLOW_PRIVATE=on allows it)`,
      );
    }
    expect(await lookup('64:ff9b::808:808')).toBeNull();
  });
});

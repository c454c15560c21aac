import { describe, expect, it } from 'vitest';
import { addressGroup, isTrustProxyList, trustedProxyTest } from '../../../src/lib/clientAddress.js';

describe('addressGroup', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::99', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1', 'fe80:0:0:0::/64'],
    ['not-an-address', 'not-an-address'],
  ])('%s → %s', (address, group) => {
    expect(addressGroup(address)).toBe(group);
  });
});

describe('trustedProxyTest (PROMPTLINE_TRUST_PROXY)', () => {
  it.each<[boolean | string, string, boolean]>([
    [false, '127.0.0.1', false],
    [true, '203.0.113.9', true],
    ['loopback', '127.0.0.1', true],
    ['loopback', '127.8.9.10', true],
    ['loopback', '::1', true],
    ['loopback', '::ffff:127.0.0.1', true], // a dual-stack socket's IPv4 peer
    ['loopback', '10.0.0.1', false],
    ['uniquelocal', '10.2.3.4', true],
    ['uniquelocal', '172.31.0.1', true],
    ['uniquelocal', '172.32.0.1', false],
    ['uniquelocal', 'fd12::1', true],
    ['linklocal', '169.254.1.1', true],
    ['linklocal', 'fe80::1', true],
    ['10.0.0.0/8, 2001:db8::/32', '10.9.9.9', true],
    ['10.0.0.0/8, 2001:db8::/32', '2001:db8:5::1', true],
    ['10.0.0.0/8, 2001:db8::/32', '11.0.0.1', false],
    ['192.0.2.7', '192.0.2.7', true],
    ['192.0.2.7', '192.0.2.8', false],
    ['192.0.2.7', '::ffff:192.0.2.7', true],
    ['::ffff:192.0.2.0/120', '192.0.2.200', true],
    ['loopback', 'not-an-address', false],
  ])('%s trusts %s: %s', (setting, address, trusted) => {
    expect(trustedProxyTest(setting)(address)).toBe(trusted);
  });

  it.each<[string, boolean]>([
    ['loopback', true],
    ['loopback, 10.0.0.0/8,fd00::/8', true],
    ['192.0.2.7', true],
    ['10.0.0.0/33', false],
    ['999.1.1.1', false],
    ['abc', false],
    ['loopback,', false],
  ])('%s is a valid list: %s', (raw, valid) => {
    expect(isTrustProxyList(raw)).toBe(valid);
  });
});

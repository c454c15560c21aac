import { describe, expect, it } from 'vitest';
import { addressGroup } from '../../../src/lib/clientAddress.js';

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

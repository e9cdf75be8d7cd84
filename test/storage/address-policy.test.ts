/** Which addresses remote fetches may reach, decided without any network. */
import { describe, expect, it } from 'vitest';
import { isPublicAddress, refusedRange } from '../../src/storage/remote-fetch.ts';

describe('isPublicAddress', () => {
  it.each([
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:0:192.168.0.1', 'private'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b:1::1', 'rfc6052'],
    ['::127.0.0.1', 'ipv4Compatible'],
    ['::8.8.8.8', 'ipv4Compatible'],
    ['fe80::1%eth0', 'linkLocal'],
    ['0x7f.1', 'invalid'],
    ['127.1', 'invalid'],
    ['2002:7f00:1::', '6to4'],
    ['2001:db8::1', 'reserved'],
    ['not an address', 'invalid'],
  ])('refuses %s (%s)', (address, range) => {
    expect(isPublicAddress(address)).toBe(false);
    expect(refusedRange(address)).toBe(range);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:2800:220:1::', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34', '64:ff9b::93.184.216.34'])(
    'allows %s',
    (address) => {
      expect(refusedRange(address)).toBeNull();
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

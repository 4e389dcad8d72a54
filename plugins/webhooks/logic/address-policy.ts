// Which IP addresses a webhook may reach. Only globally routable unicast addresses pass; every
// private, loopback, link-local, unique-local, CGNAT, metadata, documentation, multicast and
// reserved range is refused, so a registered URL cannot be turned against the gateway's own network.
import { BlockList, isIP } from 'node:net'

// IPv4 special-purpose ranges (IANA registry), with the name given in refusals.
const IPV4_RANGES: ReadonlyArray<readonly [network: string, prefix: number, kind: string]> = [
  ['0.0.0.0', 8, 'this-network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignment'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
]

// IPv6 ranges with a name for refusals. Anything else outside global unicast (2000::/3) is
// refused as reserved by the check below.
const IPV6_RANGES: ReadonlyArray<readonly [network: string, prefix: number, kind: string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b::', 96, 'NAT64'],
  ['fc00::', 7, 'unique-local (includes the fd00:ec2::254 metadata address)'],
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
  ['2001::', 23, 'IETF protocol assignment (Teredo, benchmarking)'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4'],
  ['3fff::', 20, 'documentation'],
]

function blockListOf(ranges: ReadonlyArray<readonly [string, number, string]>, family: 'ipv4' | 'ipv6'): Array<[BlockList, string]> {
  return ranges.map(([network, prefix, kind]) => {
    const list = new BlockList()
    list.addSubnet(network, prefix, family)
    return [list, kind]
  })
}

const IPV4_BLOCKS = blockListOf(IPV4_RANGES, 'ipv4')
const IPV6_BLOCKS = blockListOf(IPV6_RANGES, 'ipv6')
const ROUTABLE_IPV6 = new BlockList()
ROUTABLE_IPV6.addSubnet('2000::', 3, 'ipv6')
// IPv4-mapped addresses (::ffff:a.b.c.d) reach the IPv4 address they carry; BlockList matches
// them against the IPv4 rules above, so they are judged by what they map to.
ROUTABLE_IPV6.addSubnet('::ffff:0:0', 96, 'ipv6')

/**
 * Why an address may not be a webhook target, or undefined when it may. `address` is an IP
 * literal (IPv6 without brackets; a zone suffix such as %eth0 is ignored).
 */
export function refusalOf(address: string): string | undefined {
  const bare = address.replace(/%.*$/, '')
  const family = isIP(bare)
  if (family === 0) return 'not an IP address'
  if (family === 4) return IPV4_BLOCKS.find(([list]) => list.check(bare, 'ipv4'))?.[1]
  const kind = IPV4_BLOCKS.find(([list]) => list.check(bare, 'ipv6'))?.[1] ?? IPV6_BLOCKS.find(([list]) => list.check(bare, 'ipv6'))?.[1]
  if (kind !== undefined) return kind
  return ROUTABLE_IPV6.check(bare, 'ipv6') ? undefined : 'reserved IPv6'
}

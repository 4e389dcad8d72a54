import t from 'tap'
import { scanContent, type EntityType } from '../../../workers/scan-content.ts'

function found(text: string, type: EntityType): string[] {
  return scanContent({ text, types: [type] }).map((f) => text.slice(f.start, f.end))
}

t.test('finds IPv4 addresses with an optional CIDR prefix', async (t) => {
  t.same(found('hosts 203.0.113.7, 198.51.100.0/24 and (10.1.2.3).', 'IP_ADDRESS'), ['203.0.113.7', '198.51.100.0/24', '10.1.2.3'])
})

t.test('rejects out-of-range octets, three-part versions and prefixes over 32', async (t) => {
  t.same(found('bad 256.1.1.1 and 1.2.3', 'IP_ADDRESS'), [])
  t.same(found('net 10.0.0.0/40', 'IP_ADDRESS'), ['10.0.0.0'])
})

t.test('finds IPv6 in full, compressed, bracketed, embedded-IPv4 and zone forms', async (t) => {
  t.same(found('a 2001:0db8:0000:0000:0000:ff00:0042:8329 b', 'IP_ADDRESS'), ['2001:0db8:0000:0000:0000:ff00:0042:8329'])
  t.same(found('via [2001:db8::42]:443', 'IP_ADDRESS'), ['2001:db8::42'])
  t.same(found('mapped ::ffff:198.51.100.9 ok', 'IP_ADDRESS'), ['::ffff:198.51.100.9'])
  t.same(found('link fe80::1ff:fe23:4567:890a%eth2/64', 'IP_ADDRESS'), ['fe80::1ff:fe23:4567:890a%eth2/64'])
})

t.test('gives the unspecified address :: only a weak score', async (t) => {
  const [finding] = scanContent({ text: 'bind to ::', types: ['IP_ADDRESS'] })
  t.ok(finding !== undefined && finding.score < 0.5)
})

t.test('ignores times, ratios, C++ scopes and hex words that look like IPv6', async (t) => {
  t.same(found('at 12:34:56, ratio 1:2:3:4, std::vector, gggg:hhhh::1, :::', 'IP_ADDRESS'), [])
  t.same(found('fe80::1text', 'IP_ADDRESS'), [])
})

t.test('finds MAC addresses with colons, dashes or Cisco dots', async (t) => {
  t.same(found('eth0 3c:22:fb:9a:01:7e, wlan 3C-22-FB-9A-01-7F, sw 3c22.fb9a.0180', 'MAC_ADDRESS'), [
    '3c:22:fb:9a:01:7e',
    '3C-22-FB-9A-01-7F',
    '3c22.fb9a.0180',
  ])
})

t.test('rejects MAC look-alikes: mixed separators, five octets, broadcast', async (t) => {
  t.same(found('3c:22:fb-9a-01-7e and 3c:22:fb:9a:01 and FF:FF:FF:FF:FF:FF', 'MAC_ADDRESS'), [])
})

t.test('finds URLs with a scheme, www hosts and bare domains with a known TLD', async (t) => {
  t.same(found('see https://docs.example.org/a/b?q=1&r=2.', 'URL'), ['https://docs.example.org/a/b?q=1&r=2'])
  t.same(found('(visit www.example.net/page)', 'URL'), ['www.example.net/page'])
  t.same(found('domains example.com and shop.example.co.il', 'URL'), ['example.com', 'shop.example.co.il'])
})

t.test('keeps a closing bracket that belongs to the URL', async (t) => {
  t.same(found('wiki https://en.example.org/wiki/Foo_(bar) end', 'URL'), ['https://en.example.org/wiki/Foo_(bar)'])
})

t.test('ignores file names, sentence breaks, hosts without a TLD and domains inside e-mail addresses', async (t) => {
  t.same(found('run main.py then end.It works; www.intranet; http://a; mail bob@example.com', 'URL'), [])
})

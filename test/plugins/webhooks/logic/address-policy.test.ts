// The address rules alone: which IPs a webhook may reach, and how a registered URL's host is
// judged whatever form it is written in. No socket is opened here.
import t from 'tap'
import fc from 'fast-check'
import { refusalOf } from '../../../../plugins/webhooks/logic/address-policy.ts'
import { checkTargetUrl, type TargetPolicy } from '../../../../plugins/webhooks/routes/target-check.ts'
import { InvalidRequestError } from '../../../../proxy/pipeline/errors.ts'

const noDns = async (hostname: string): Promise<never> => {
  throw new Error(`no lookup expected for ${hostname}`)
}
const strict: TargetPolicy = { allowHttp: true, allowPrivateTargets: false, resolve: noDns }

t.test('public IPv4 and IPv6 addresses, mapped or not, are allowed', async (t) => {
  for (const address of ['8.8.8.8', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8']) {
    t.equal(refusalOf(address), undefined, address)
  }
})

t.test('private, loopback, link-local, unique-local, CGNAT, metadata and reserved addresses are refused with their kind', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['10.0.0.1', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['0.0.0.0', /this-network/],
    ['169.254.169.254', /link-local \(cloud metadata\)/],
    ['169.254.1.1', /link-local/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['192.0.2.1', /documentation/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /reserved/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['fc00::1', /unique-local/],
    ['fd00:ec2::254', /unique-local/],
    ['ff02::1', /multicast/],
    ['64:ff9b::7f00:1', /NAT64/],
    ['2001:db8::1', /documentation/],
    ['2002:7f00:1::1', /6to4/],
    ['::127.0.0.1', /reserved IPv6/],
  ]
  for (const [address, kind] of cases) t.match(refusalOf(address), kind, address)
})

t.test('IPv4-mapped IPv6 addresses are judged by the IPv4 address they carry', async (t) => {
  t.match(refusalOf('::ffff:127.0.0.1'), /loopback/)
  t.match(refusalOf('::ffff:7f00:1'), /loopback/)
  t.match(refusalOf('::ffff:a9fe:a9fe'), /metadata/)
  t.match(refusalOf('::ffff:10.0.0.1'), /private/)
})

const refusedRanges: ReadonlyArray<readonly [base: number, prefix: number]> = [
  [0x0a000000, 8],
  [0x7f000000, 8],
  [0xa9fe0000, 16],
  [0xac100000, 12],
  [0xc0a80000, 16],
  [0x64400000, 10],
]
const dotted = (n: number) => [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.')

t.test('a refused IPv4 address is refused however its host is written: dotted, decimal, hex, octal or mapped', async (t) => {
  const address = fc
    .constantFrom(...refusedRanges)
    .chain(([base, prefix]) => fc.integer({ min: 0, max: 2 ** (32 - prefix) - 1 }).map((offset) => (base + offset) >>> 0))
  const spelling = fc.constantFrom(
    (n: number) => dotted(n),
    (n: number) => String(n),
    (n: number) => `0x${n.toString(16)}`,
    (n: number) => [24, 16, 8, 0].map((shift) => `0${((n >>> shift) & 255).toString(8)}`).join('.'),
    (n: number) => `[::ffff:${dotted(n)}]`,
  )
  await fc.assert(
    fc.asyncProperty(address, spelling, (n, spell) =>
      checkTargetUrl(`https://${spell(n)}/hook`, strict).then(
        () => false,
        (err: unknown) => err instanceof InvalidRequestError,
      ),
    ),
    { numRuns: 300 },
  )
  t.pass('300 generated spellings were all refused')
})

t.test('a host name is refused when any of its addresses is private, and when it does not resolve', async (t) => {
  const resolve = async (hostname: string) => {
    if (hostname === 'mixed.example') return ['93.184.216.34', '10.0.0.7']
    if (hostname === 'public.example') return ['93.184.216.34']
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
  }
  const policy = { ...strict, resolve }
  await t.rejects(checkTargetUrl('https://mixed.example/', policy), { message: /mixed\.example resolves to a private address \(10\.0\.0\.7\)/ })
  await t.rejects(
    checkTargetUrl('https://nowhere.example/', policy),
    new InvalidRequestError('Invalid request: url host nowhere.example does not resolve', 'url host nowhere.example does not resolve.'),
  )
  t.equal(await checkTargetUrl('https://public.example/hooks#frag', policy), 'https://public.example/hooks')
})

t.test('allowPrivateTargets accepts private hosts without resolving them', async (t) => {
  t.equal(await checkTargetUrl('http://127.0.0.1:9/x', { ...strict, allowPrivateTargets: true }), 'http://127.0.0.1:9/x')
  t.equal(await checkTargetUrl('https://internal.example/', { ...strict, allowPrivateTargets: true }), 'https://internal.example/')
})

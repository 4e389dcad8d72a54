// Checks a webhook URL when it is registered or changed: https (http only when allowed), no
// credentials, and, unless private targets are allowed, a host that is or resolves only to public
// addresses. The WHATWG URL parser has already turned decimal, octal and hex hosts
// (http://2130706433/) into dotted IPv4, so they are judged by the address they denote.
// The same rule is applied again at connect time by guarded-dispatcher.ts.
import { isIP } from 'node:net'
import { InvalidRequestError } from '../../../proxy/pipeline/errors.ts'
import { refusalOf } from '../logic/address-policy.ts'
import type { ResolveHost } from '../resolve-host.ts'

export interface TargetPolicy {
  readonly allowHttp: boolean
  readonly allowPrivateTargets: boolean
  readonly resolve: ResolveHost
}

function invalidUrl(problem: string, detail = problem): InvalidRequestError {
  return new InvalidRequestError(`Invalid request: ${problem}`, `${detail}.`, [{ path: 'url', message: problem }])
}

/** The URL as deliveries will call it; throws a 400 naming the problem. */
export async function checkTargetUrl(raw: string, policy: TargetPolicy): Promise<string> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw invalidUrl('url must be an absolute URL', 'url must be an absolute URL such as https://hooks.example.com/tollgate')
  }
  if (url.protocol === 'http:' && !policy.allowHttp) {
    throw invalidUrl('url must use https', 'url must use https; http is accepted only when WEBHOOKS_ALLOW_HTTP is set')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidUrl('url must use https')
  if (url.username !== '' || url.password !== '') {
    throw invalidUrl('url must not contain credentials', 'url must not contain a user name or password; authenticate deliveries by their signature')
  }
  url.hash = ''
  if (policy.allowPrivateTargets) return url.href
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  let addresses: readonly string[]
  try {
    addresses = isIP(host) === 0 ? await policy.resolve(host) : [host]
  } catch {
    throw invalidUrl(`url host ${host} does not resolve`)
  }
  for (const address of addresses) {
    const why = refusalOf(address)
    if (why === undefined) continue
    const where = address === host ? `url points to a ${why} address (${address})` : `url host ${host} resolves to a ${why} address (${address})`
    throw invalidUrl(where, `${where}; webhooks may reach only public addresses unless WEBHOOKS_ALLOW_PRIVATE_TARGETS is set`)
  }
  return url.href
}

// The HTTP client for deliveries. Unless private targets are allowed, every connection is checked
// when it is made, after name resolution and before the socket opens: a name that resolved to a
// public address at registration and to a private one now (DNS rebinding) is refused here.
// Redirects are never followed (undici does not follow them without its redirect interceptor).
import { isIP, type LookupFunction } from 'node:net'
import { Agent, buildConnector } from 'undici'
import { refusalOf } from './logic/address-policy.ts'
import type { ResolveHost } from './resolve-host.ts'

/** A connection the address policy refused; nothing was sent. */
export class TargetRefusedError extends Error {
  readonly code = 'WEBHOOK_TARGET_REFUSED'
}

interface DispatcherOptions {
  readonly allowPrivateTargets: boolean
  readonly resolve: ResolveHost
  readonly connectTimeoutMs: number
}

function refusal(address: string): TargetRefusedError | undefined {
  const why = refusalOf(address)
  return why === undefined ? undefined : new TargetRefusedError(`refused: ${address} is ${why}`)
}

/** Resolves through `resolve` and fails when any answer is not a public address. */
function guardedLookup(resolve: ResolveHost): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (all) => {
        const refused = all.map(refusal).find((err) => err !== undefined)
        if (refused !== undefined) return callback(refused, '', 0)
        const wanted = all.filter((address) => (options.family !== 4 && options.family !== 6 ? true : isIP(address) === options.family))
        if (wanted.length === 0) return callback(Object.assign(new Error(`${hostname} has no address of the requested family`), { code: 'ENOTFOUND' }), '', 0)
        if (options.all === true)
          return callback(
            null,
            wanted.map((address) => ({ address, family: isIP(address) })),
          )
        callback(null, wanted[0]!, isIP(wanted[0]!))
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    )
  }
}

export function createDeliveryDispatcher(options: DispatcherOptions): Agent {
  if (options.allowPrivateTargets) return new Agent({ connect: { timeout: options.connectTimeoutMs } })
  const connect = buildConnector({ timeout: options.connectTimeoutMs, lookup: guardedLookup(options.resolve) })
  return new Agent({
    connect(target, callback) {
      // An IP literal skips the lookup hook, so it is judged here.
      const refused = isIP(target.hostname) === 0 ? undefined : refusal(target.hostname)
      if (refused !== undefined) return callback(refused, null)
      connect(target, callback)
    },
  })
}

// Name resolution for webhook targets, injectable so tests can play a DNS server that changes its
// answer (rebinding) without any traffic leaving the machine.
import { lookup } from 'node:dns/promises'

/** Every address `hostname` resolves to. Rejects when it does not resolve. */
export type ResolveHost = (hostname: string) => Promise<readonly string[]>

export const systemResolve: ResolveHost = async (hostname) => (await lookup(hostname, { all: true, order: 'verbatim' })).map((entry) => entry.address)

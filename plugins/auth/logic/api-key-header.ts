// Where a client puts its key: `X-API-Key` (preferred) or `Authorization: Bearer`.
import type { IncomingHttpHeaders } from 'node:http'

export function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const direct = headers['x-api-key']
  if (typeof direct === 'string' && direct.trim() !== '') return direct.trim()
  const authorization = headers.authorization
  if (authorization === undefined) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  return match?.[1]
}

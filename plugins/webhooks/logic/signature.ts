// What a receiver checks: both signatures are hex HMAC-SHA256 keyed by the webhook secret (its
// UTF-8 bytes). v1 covers the exact body bytes sent; v2 covers `${timestamp}.` followed by those
// bytes, so a receiver can also refuse a replayed delivery whose timestamp is too old.
import { createHmac } from 'node:crypto'

export const HEADER = {
  signature: 'x-gateway-signature',
  signatureV2: 'x-gateway-signature-v2',
  timestamp: 'x-gateway-timestamp',
  eventId: 'x-gateway-event-id',
} as const

function signBody(secret: string, body: Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex')
}

function signTimestamped(secret: string, timestampS: number, body: Buffer): string {
  return createHmac('sha256', secret).update(`${timestampS}.`).update(body).digest('hex')
}

/** The delivery headers for one attempt; `timestampS` is unix seconds at the attempt. */
export function deliveryHeaders(secret: string, body: Buffer, timestampS: number, eventId: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    [HEADER.signature]: signBody(secret, body),
    [HEADER.signatureV2]: signTimestamped(secret, timestampS, body),
    [HEADER.timestamp]: String(timestampS),
    [HEADER.eventId]: eventId,
  }
}

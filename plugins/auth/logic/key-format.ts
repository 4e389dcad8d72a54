// API key format: `sk_` or `pk_`, an optional environment marker, 32 random base62
// characters, then a 6-character CRC32 checksum so that scanners can recognize a leaked key and
// the gateway can reject a mistyped one without a store lookup.
import { randomInt } from 'node:crypto'
import { crc32 } from 'node:zlib'
import type { KeyEnv, KeyType } from '../../../proxy/pipeline/context.ts'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const RANDOM_LENGTH = 32
const CHECKSUM_LENGTH = 6
const KEY_PATTERN = /^(sk|pk)_(?:(dev|stg|prod)_)?([0-9A-Za-z]{38})$/

export interface ParsedKey {
  readonly type: KeyType
  readonly env: KeyEnv | null
}

function base62(value: number, width: number): string {
  let out = ''
  for (let i = 0; i < width; i++) {
    out = BASE62[value % 62]! + out
    value = Math.floor(value / 62)
  }
  return out
}

function checksum(text: string): string {
  return base62(crc32(text), CHECKSUM_LENGTH)
}

export function generateKey(type: KeyType, env: KeyEnv | null): string {
  let random = ''
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)]
  const head = `${type}_${env === null ? '' : `${env}_`}${random}`
  return head + checksum(head)
}

/** Undefined when the text is not a well-formed key with a valid checksum. */
export function parseKey(key: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(key)
  if (match === null) return undefined
  const head = key.slice(0, -CHECKSUM_LENGTH)
  if (checksum(head) !== key.slice(-CHECKSUM_LENGTH)) return undefined
  return { type: match[1] as KeyType, env: (match[2] as KeyEnv | undefined) ?? null }
}

/** The spec's "key prefix": first and last characters, enough to tell keys apart, never enough to use one. */
export function displayPrefix(key: string): string {
  const marker = /^(?:sk|pk)_(?:(?:dev|stg|prod)_)?/.exec(key)?.[0] ?? ''
  return `${key.slice(0, marker.length + 4)}…${key.slice(-4)}`
}

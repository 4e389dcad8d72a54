// IP_ADDRESS: IPv4 (dotted quad, optional CIDR prefix) and IPv6 in every textual form RFC 4291
// and RFC 5952 allow (compressed, embedded IPv4, zone id, prefix). Candidates come from bounded
// regexes; node:net's parser has the final word on IPv6.
import { isIPv6 } from 'node:net'
import { scoreWithContext } from './context.ts'
import type { Detector, Finding } from './types.ts'

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)'
const IPV4 = new RegExp(`(?<![\\w.])${OCTET}(?:\\.${OCTET}){3}(?:\\/(?:3[0-2]|[12]?\\d)(?!\\d))?(?!\\d)`, 'g')
const IPV6 = /(?<![\w:.%])(?:[0-9A-Fa-f]{1,4}|(?=::))(?::[0-9A-Fa-f]{0,4}){1,7}(?:\.\d{1,3}){0,3}(?:%[\w.-]{1,15})?(?:\/\d{1,3}(?!\d))?/g
const CONTEXT = /\bip\b|ipv[46]|address|addr|host|server|gateway|subnet|dns|route|connect|ssh|ping/i

export const ipAddressDetector: Detector = {
  types: ['IP_ADDRESS'],
  detect(text) {
    const findings: Finding[] = []
    for (const m of text.matchAll(IPV4)) {
      const start = m.index
      const end = start + m[0].length
      findings.push({ type: 'IP_ADDRESS', start, end, score: scoreWithContext(text, start, end, CONTEXT, 0.6, 0.9) })
    }
    for (const m of text.matchAll(IPV6)) {
      const length = validIpv6Length(m[0])
      if (length === undefined) continue
      const start = m.index
      const end = start + length
      const next = text.charCodeAt(end)
      if (isHexOrWordOrColon(next)) continue
      const unspecified = m[0].startsWith('::') && length === 2
      const score = unspecified ? 0.1 : scoreWithContext(text, start, end, CONTEXT, 0.6, 0.9)
      findings.push({ type: 'IP_ADDRESS', start, end, score })
    }
    return findings
  },
}

/** Length of the valid IPv6 literal (with zone and prefix) at the start of the candidate. */
function validIpv6Length(candidate: string): number | undefined {
  const [beforePrefix, prefix] = splitOnce(candidate, '/')
  const [address, zone] = splitOnce(beforePrefix, '%')
  if (!isIPv6(address)) return undefined
  let length = address.length
  if (zone !== undefined) length += 1 + zone.length
  if (prefix !== undefined && Number(prefix) <= 128) length += 1 + prefix.length
  return length
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator)
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)]
}

function isHexOrWordOrColon(code: number): boolean {
  return (code >= 48 && code <= 58) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
}

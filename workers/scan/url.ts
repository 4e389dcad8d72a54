// URL: addresses with a scheme (http, https, ftp, ws), "www." hosts, and bare domain names whose
// top-level domain is a well-known one. A bare "name.tld" needs a lower-case TLD from the list
// below so that file names ("main.py") and sentence breaks ("end.It") are not taken for hosts.
import { isIPv4, isIPv6 } from 'node:net'
import type { Detector, Finding } from './types.ts'

const SCHEME_URL = /(?<![\w])(?:https?|ftps?|wss?):\/\/[^\s<>"'\x60{}|\\^]+/gi
const HOST_URL = /(?<![\w.@/:%+-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,8}[a-z]{2,24}(?::\d{2,5})?(?:\/[^\s<>"'\x60{}|\\^]*)?(?![\w\-@]|\.\w)/gi
const TRAILING_PUNCTUATION = /[.,;:!?'")\]]+$/
const HOST_LABELS = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,24}|xn--[a-z0-9-]{2,59})$/i
const WELL_KNOWN_TLDS = new Set(
  (
    'com org net edu gov mil int io co ai app dev info biz me tv site online xyz tech store blog cloud page ' +
    'shop news live pro name mobi asia eu us uk de fr es it nl be ch at se no dk fi pl cz ru ua tr il in cn ' +
    'jp kr au nz ca br mx ar cl za sg hk tw ie pt gr ro hu sk si hr bg lt lv ee lu is vn th my id ph pk ng ' +
    'ke eg sa ae qa ir vlaanderen'
  ).split(' '),
)

export const urlDetector: Detector = {
  types: ['URL'],
  detect(text) {
    const findings: Finding[] = []
    for (const m of text.matchAll(SCHEME_URL)) {
      const url = trimTrailing(m[0])
      if (hasValidHost(url)) findings.push({ type: 'URL', start: m.index, end: m.index + url.length, score: 0.6 })
    }
    for (const m of text.matchAll(HOST_URL)) {
      const url = trimTrailing(m[0])
      const host = url.split(/[/:]/)[0] as string
      const labels = host.split('.')
      const tld = labels[labels.length - 1] as string
      const isWww = host.toLowerCase().startsWith('www.')
      if (isWww ? labels.length < 3 : !WELL_KNOWN_TLDS.has(tld)) continue
      findings.push({ type: 'URL', start: m.index, end: m.index + url.length, score: isWww ? 0.6 : 0.4 })
    }
    return findings
  },
}

/** Drops sentence punctuation after a URL, keeping a closing bracket that has its opener inside. */
function trimTrailing(url: string): string {
  let trimmed = url.replace(TRAILING_PUNCTUATION, '')
  const tail = url.slice(trimmed.length)
  for (const ch of tail) {
    const opener = ch === ')' ? '(' : ch === ']' ? '[' : undefined
    if (opener === undefined || count(trimmed, opener) <= count(trimmed, ch)) break
    trimmed += ch
  }
  return trimmed
}

function count(text: string, ch: string): number {
  return text.split(ch).length - 1
}

function hasValidHost(url: string): boolean {
  const afterScheme = url.slice(url.indexOf('//') + 2)
  const authority = afterScheme.split(/[/?#]/)[0] as string
  const hostAndPort = authority.slice(authority.lastIndexOf('@') + 1)
  if (hostAndPort.startsWith('[')) return isIPv6(hostAndPort.slice(1, hostAndPort.indexOf(']')))
  const host = hostAndPort.replace(/:\d{1,5}$/, '')
  return host.toLowerCase() === 'localhost' || isIPv4(host) || HOST_LABELS.test(host)
}

// EMAIL_ADDRESS: local-part@domain with a plausible top-level domain, plus the common dodges
// "name [at] host [dot] com". Scanned by hand from each "@" outwards rather than with one big
// regex, so the cost stays linear however long the runs of address characters are.
import type { Detector, Finding } from './types.ts'

const MAX_LOCAL = 64
const MAX_LABEL = 63
const MAX_DOMAIN = 253
const AT_SIGNS = /@|\s?[[({]at[\])}]\s?/gi
const DOT_WORD = /^(?:\.|\s?[[({]dot[\])}]\s?|\[\.\])/i
const TOP_LEVEL = /^(?:[a-z]{2,24}|xn--[a-z0-9-]{2,59})$/i

export const emailDetector: Detector = {
  types: ['EMAIL_ADDRESS'],
  detect(text) {
    const findings: Finding[] = []
    AT_SIGNS.lastIndex = 0
    for (let m = AT_SIGNS.exec(text); m !== null; m = AT_SIGNS.exec(text)) {
      const atStart = m.index
      const atEnd = m.index + m[0].length
      const start = localPartStart(text, atStart)
      if (start === atStart) continue
      const domain = domainEnd(text, atEnd)
      if (domain === undefined) continue
      const obfuscated = m[0] !== '@' || domain.obfuscated
      findings.push({ type: 'EMAIL_ADDRESS', start, end: domain.end, score: obfuscated ? 0.75 : 0.95 })
      AT_SIGNS.lastIndex = Math.max(AT_SIGNS.lastIndex, domain.end)
    }
    return findings
  },
}

function isLocalChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 46 ||
    code === 95 ||
    code === 37 ||
    code === 43 ||
    code === 45
  )
}

function isLabelChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 45
}

/** Start of the local part before an "@", or atStart when there is none (or it is too long). */
function localPartStart(text: string, atStart: number): number {
  let k = atStart
  while (k > 0 && atStart - k < MAX_LOCAL && isLocalChar(text.charCodeAt(k - 1))) k--
  if (k > 0 && isLocalChar(text.charCodeAt(k - 1))) return atStart
  while (k < atStart && text.charCodeAt(k) === 46) k++
  return k
}

interface DomainMatch {
  readonly end: number
  readonly obfuscated: boolean
}

/** End of a valid dotted domain starting at `from`, or undefined. */
function domainEnd(text: string, from: number): DomainMatch | undefined {
  const labelEnds: number[] = []
  const labels: string[] = []
  let obfuscated = false
  let pos = from
  while (pos - from <= MAX_DOMAIN) {
    let end = pos
    while (end < text.length && end - pos <= MAX_LABEL && isLabelChar(text.charCodeAt(end))) end++
    const label = text.slice(pos, end)
    if (label.length === 0 || label.length > MAX_LABEL || label.startsWith('-') || label.endsWith('-')) break
    labels.push(label)
    labelEnds.push(end)
    const dot = DOT_WORD.exec(text.slice(end, end + 8))
    if (dot === null || !isLabelChar(text.charCodeAt(end + dot[0].length))) break
    if (dot[0] !== '.') obfuscated = true
    pos = end + dot[0].length
  }
  while (labels.length >= 2) {
    const top = labels[labels.length - 1] as string
    if (TOP_LEVEL.test(top)) {
      const end = labelEnds[labels.length - 1] as number
      if (end < text.length && (text.charCodeAt(end) === 95 || text.charCodeAt(end) === 64)) return undefined
      return { end, obfuscated }
    }
    labels.pop()
    labelEnds.pop()
  }
  return undefined
}

// PEM private key blocks (RSA, EC, DSA, OpenSSH, PKCS#8, PGP). A block counts when it carries
// at least 64 characters of key material; a header around "…" or "anything" does not. A block
// pasted without its footer still counts, up to the end of its base64 lines.
import type { Span } from './normalize.ts'

const HEADER = /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/g
const FOOTER = /-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/g
const BASE64_LINES = /\s{0,4}[A-Za-z0-9+/=]{2,}(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/=]{2,})*/y
const MIN_MATERIAL = 64

export function findPrivateKeys(text: string): Span[] {
  const spans: Span[] = []
  let footer: RegExpExecArray | null | undefined
  HEADER.lastIndex = 0
  for (let m = HEADER.exec(text); m !== null; m = HEADER.exec(text)) {
    const bodyStart = m.index + m[0].length
    if (footer !== null && (footer === undefined || footer.index < bodyStart)) {
      FOOTER.lastIndex = bodyStart
      footer = FOOTER.exec(text)
    }
    BASE64_LINES.lastIndex = bodyStart
    const lines = BASE64_LINES.exec(text)
    const linesEnd = lines === null ? bodyStart : bodyStart + lines[0].length
    if (countKeyMaterial(text.slice(bodyStart, linesEnd)) < MIN_MATERIAL) continue
    const closed = footer !== null && footer !== undefined && /^\s*$/.test(text.slice(linesEnd, footer.index))
    const end = closed && footer ? footer.index + footer[0].length : linesEnd
    spans.push({ start: m.index, end })
    HEADER.lastIndex = end
  }
  return spans
}

function countKeyMaterial(body: string): number {
  let n = 0
  for (let i = 0; i < body.length; i++) if (!/\s/.test(body[i] as string)) n++
  return n
}

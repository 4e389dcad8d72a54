// Tokens that services issued before they gave them a recognizable prefix: GitHub's classic
// personal and OAuth tokens and Sourcegraph's, CircleCI's, Gitea's and Gogs's access tokens are
// 40 hex digits; Sentry's older auth tokens 64. A bare hex run is also what every commit id and
// checksum looks like, so one counts only when the service is named just before it together with
// a credential word ("GitHub token: …", "sourcegraph access token …") and nothing around it
// says commit, hash or checksum.
import type { Span } from './normalize.ts'

const SERVICES = /\b(?:github|gh|sourcegraph|circleci|circle|gitea|gogs|sentry)\b/i
const CREDENTIAL_WORD = /token|\bkey\b|secret|\bpat\b|auth|password|credential|access/i
const NOT_A_CREDENTIAL = /commit|\bsha\d*\b|revision|\brev\b|hash|checksum|digest|\btree\b|\bblob\b|\bref\b|fingerprint|\bid\b/i
// 40 or 64 hex digits of one case, not part of a longer word, a path or a URL.
const HEX_RUN = /(?<![\w/@#.-])(?:[0-9a-f]{40}|[0-9A-F]{40}|[0-9a-f]{64})(?![\w/.-])/g
const WINDOW = 64

export function findLegacyServiceTokens(text: string, lower: string): Span[] {
  if (!SERVICES.test(lower)) return []
  const spans: Span[] = []
  for (const m of text.matchAll(HEX_RUN)) {
    if (!/\d/.test(m[0]) || !/[a-f]/i.test(m[0])) continue
    const before = text.slice(Math.max(0, m.index - WINDOW), m.index)
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 16)
    if (!SERVICES.test(before) || !CREDENTIAL_WORD.test(before)) continue
    if (NOT_A_CREDENTIAL.test(before) || NOT_A_CREDENTIAL.test(after)) continue
    spans.push({ start: m.index, end: m.index + m[0].length })
  }
  return spans
}

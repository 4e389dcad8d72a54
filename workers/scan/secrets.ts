// SECRET: provider keys and tokens by format, JWTs, private key blocks, credentials in curl
// commands, URLs and authentication calls, legacy tokens of known services named nearby, and
// random-looking values assigned to secret-like names. Placeholders ("xxxx", "<token>",
// "${VAR}"), low-entropy fills and vendors' documented example keys are never reported.
import { isDocumentedExample } from './example-keys.ts'
import { findLegacyServiceTokens } from './legacy-tokens.ts'
import type { Span } from './normalize.ts'
import { findAssignedSecrets, findCredentialPairs, findCurlCredentials, findUrlCredentials } from './secret-assignments.ts'
import { minEntropyOf, SECRET_RULES, type SecretRule } from './secret-rules.ts'
import { isPlaceholder, isTemplate, shannonEntropy } from './secret-values.ts'
import { findJwts } from './jwt.ts'
import { findPrivateKeys } from './private-key.ts'
import type { Detector, Finding } from './types.ts'

const PROVIDER_SCORE = 0.95
const JWT_SCORE = 0.9
const PRIVATE_KEY_SCORE = 1
const CREDENTIAL_SCORE = 0.8
const ASSIGNED_SCORE = 0.7
const LEGACY_TOKEN_SCORE = 0.6
const AUTH_CALL = /auth|credential|login|logon|sign_?in/

export const secretDetector: Detector = {
  types: ['SECRET'],
  detect(text) {
    const lower = text.toLowerCase()
    const findings: Finding[] = []
    const add = (spans: readonly Span[], score: number): void => {
      for (const span of spans) {
        if (!isDocumentedExample(text.slice(span.start, span.end))) findings.push({ type: 'SECRET', start: span.start, end: span.end, score })
      }
    }
    for (const rule of SECRET_RULES) {
      if (rule.keywords.length > 0 && !rule.keywords.some((keyword) => lower.includes(keyword))) continue
      add(ruleMatches(rule, text), PROVIDER_SCORE)
    }
    if (lower.includes('eyj') || lower.includes('zxlk')) add(findJwts(text), JWT_SCORE)
    if (lower.includes('private key')) add(findPrivateKeys(text), PRIVATE_KEY_SCORE)
    if (lower.includes('curl')) add(findCurlCredentials(text), CREDENTIAL_SCORE)
    if (lower.includes('://')) add(findUrlCredentials(text), CREDENTIAL_SCORE)
    if (AUTH_CALL.test(lower)) add(findCredentialPairs(text), CREDENTIAL_SCORE)
    add(findLegacyServiceTokens(text, lower), LEGACY_TOKEN_SCORE)
    add(findAssignedSecrets(text), ASSIGNED_SCORE)
    return findings
  },
}

function ruleMatches(rule: SecretRule, text: string): Span[] {
  const spans: Span[] = []
  for (const m of text.matchAll(rule.pattern)) {
    const captured = m.indices?.[1]
    const start = captured?.[0] ?? m.index
    const end = captured?.[1] ?? m.index + m[0].length
    const secret = text.slice(start, end)
    const variablePart = secret.slice(rule.prefixLength ?? 0)
    if (isPlaceholder(variablePart) || isTemplate(variablePart)) continue
    if (shannonEntropy(variablePart) < minEntropyOf(rule)) continue
    if (rule.check !== undefined && !rule.check(secret)) continue
    spans.push({ start, end })
  }
  return spans
}

// POST /api/governor/rules/test: where a custom rule, saved or not, matches a sample text, found
// as request-time matching finds it. A rule that could not be saved is refused with the reason
// saving would give. Nothing is stored.
import { z } from 'zod'
import type { ProjectRouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { assertSavable, ruleFields } from '../policies.ts'
import { findRuleSpans } from '../logic/verdict/custom-rules.ts'

const MAX_SAMPLE_CHARS = 100_000

const ruleTestBody = z.strictObject({
  pattern: ruleFields.pattern,
  regex: ruleFields.regex.default(false),
  text: z.string({ error: 'text must be a string' }).max(MAX_SAMPLE_CHARS, `text may hold at most ${MAX_SAMPLE_CHARS} characters`),
})

const ruleTestAnswer = z.object({
  matched: z.boolean(),
  count: z.number().int(),
  matches: z.array(z.object({ start: z.number().int(), end: z.number().int(), text: z.string() })),
})

export function ruleTestRoute(): ProjectRouteSpec {
  return {
    keyTypes: ['sk', 'pk'],
    writes: false,
    method: 'POST',
    path: '/governor/rules/test',
    name: 'governor_rule_test',
    body: ruleTestBody,
    docs: { response: ruleTestAnswer },
    handle(ctx) {
      const { pattern, regex, text } = ctx.body as z.output<typeof ruleTestBody>
      assertSavable({ pattern, regex })
      const matches = findRuleSpans({ pattern, regex }, text).map(({ start, end }) => ({ start, end, text: text.slice(start, end) }))
      return Reply.json({ matched: matches.length > 0, count: matches.length, matches })
    },
  }
}

// A request's texts as the Governor scans them: a tool call's arguments in the client's history
// with their escape sequences resolved, so a card right after "\n" is found and placed in the
// arguments as sent; a message's text as it is, even when it looks like JSON.
import t from 'tap'
import type { AiRequest } from '../../../../proxy/pipeline/ai-request.ts'
import { requestScanViews } from '../../../../plugins/governor/logic/request-views.ts'
import { findingsInRaw } from '../../../../plugins/governor/logic/stream/json-scan-view.ts'
import { scanContent } from '../../../../workers/scan-content.ts'
import { SENSITIVE } from '../fixtures.ts'

const ARGUMENTS = `{"note":"call me\\n${SENSITIVE.card}"}`

const request: AiRequest = {
  messages: [
    { role: 'user', content: ARGUMENTS },
    { role: 'assistant', content: 'Noting it.', toolCalls: [{ id: 'c1', name: 'note', arguments: ARGUMENTS }] },
    { role: 'tool', toolCallId: 'c1', content: 'noted' },
  ],
  quality: 'balanced',
  temperature: 0.7,
  maxTokens: 100,
  mode: 'text',
}

t.test("a tool call's arguments are read with their escapes resolved, every other text as it is", async (t) => {
  const views = requestScanViews(request)
  t.same(
    views.map((view) => view.text),
    [ARGUMENTS, 'Noting it.', `{"note":"call me\n${SENSITIVE.card}"}`, 'noted'],
  )
})

t.test('a card right after an escape in the arguments is found and mapped back to the arguments as sent', async (t) => {
  const view = requestScanViews(request)[2]!
  t.same(
    scanContent({ text: ARGUMENTS }).filter((f) => f.type === 'CREDIT_CARD'),
    [],
    'the raw arguments hide it',
  )
  const cards = findingsInRaw(scanContent({ text: view.text }), view).filter((f) => f.type === 'CREDIT_CARD')
  t.equal(cards.length, 1)
  t.equal(ARGUMENTS.slice(cards[0]!.start, cards[0]!.end), SENSITIVE.card)
})

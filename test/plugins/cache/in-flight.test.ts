import t from 'tap'
import { InFlight, untilAborted } from '../../../plugins/cache/in-flight.ts'

t.test('only the leader can answer or end its flight', async (t) => {
  const flights = new InFlight<string>()
  const leader = {}
  flights.lead('k', leader)
  const waiting = flights.answerFor('k')!
  flights.answer('k', {}, 'from a stranger')
  flights.end('k', {})
  t.equal(flights.answerFor('k'), waiting)
  flights.answer('k', leader, 'from the leader')
  t.equal(await waiting, 'from the leader')
  flights.end('k', leader)
  t.equal(flights.answerFor('k'), undefined)
})

t.test('a flight ended without an answer gives its followers undefined', async (t) => {
  const flights = new InFlight<string>()
  const leader = {}
  flights.lead('k', leader)
  const waiting = flights.answerFor('k')!
  flights.end('k', leader)
  t.equal(await waiting, undefined)
})

t.test('untilAborted gives up at once on a signal that is already aborted', async (t) => {
  t.equal(await untilAborted(new Promise<string>(() => {}), AbortSignal.abort()), undefined)
})

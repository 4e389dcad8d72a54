import t from 'tap'
import { createCooldowns } from '../../../plugins/router/cooldowns.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

t.test('a deployment rests until the clock passes its rest, and a shorter rest does not cut a longer one', async (t) => {
  const clock = manualClock(1_000_000)
  const cooldowns = createCooldowns(clock)
  cooldowns.coolDown('a', 30_000)
  cooldowns.coolDown('a', 5_000)
  t.ok(cooldowns.isCooling('a'))
  t.notOk(cooldowns.isCooling('b'))
  clock.advance(29_999)
  t.ok(cooldowns.isCooling('a'))
  clock.advance(1)
  t.notOk(cooldowns.isCooling('a'))
})

t.test('readyInMs is the wait for the first of the deployments to be back', async (t) => {
  const clock = manualClock(0)
  const cooldowns = createCooldowns(clock)
  cooldowns.coolDown('a', 20_000)
  cooldowns.coolDown('b', 8_000)
  t.equal(cooldowns.readyInMs(['a', 'b']), 8_000)
  t.equal(cooldowns.readyInMs(['a', 'c']), 0, 'c never rested')
})

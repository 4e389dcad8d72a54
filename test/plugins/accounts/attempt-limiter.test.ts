import t from 'tap'
import { createAttemptLimiter } from '../../../plugins/accounts/attempt-limiter.ts'
import { manualClock } from './helpers.ts'

t.test('a key allows its limit per minute, then reports the seconds until its window ends', async (t) => {
  const clock = manualClock()
  const limiter = createAttemptLimiter(clock)
  const keys = [{ key: 'ip', limit: 3 }]
  t.same([limiter.attempt(keys), limiter.attempt(keys), limiter.attempt(keys)].map((a) => a.allowed), [true, true, true])
  clock.advance(15_500)
  t.same(limiter.attempt(keys), { allowed: false, retryAfterS: 45 })
  clock.advance(44_500)
  t.same(limiter.attempt(keys), { allowed: true })
})

t.test('an attempt refused by one key is counted under none', async (t) => {
  const limiter = createAttemptLimiter(manualClock())
  const ip = { key: 'ip', limit: 1 }
  const email = { key: 'email', limit: 5 }
  t.equal(limiter.attempt([ip, email]).allowed, true)
  for (let i = 0; i < 4; i++) t.equal(limiter.attempt([ip, email]).allowed, false)
  t.equal(limiter.attempt([{ key: 'other-ip', limit: 1 }, email]).allowed, true, 'the refused attempts did not use up the e-mail\'s allowance')
})

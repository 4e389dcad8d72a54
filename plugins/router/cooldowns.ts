// Which deployments rest after a failure, and until when, on the gateway's clock: state, so it sits
// beside the hooks and not in logic/. What counts as a failure and how long it rests are the
// caller's to say.
import type { Clock } from '../../proxy/kit/clock.ts'

export interface Cooldowns {
  /** Rests the deployment for `ms` from now; a longer rest already set stands. */
  coolDown(deployment: string, ms: number): void
  isCooling(deployment: string): boolean
  /** Milliseconds until the first of these deployments is ready again; 0 when one already is. */
  readyInMs(deployments: Iterable<string>): number
}

export function createCooldowns(clock: Clock): Cooldowns {
  const until = new Map<string, number>()
  const restLeft = (deployment: string) => Math.max(0, (until.get(deployment) ?? 0) - clock.now())
  return {
    coolDown(deployment, ms) {
      const end = clock.now() + ms
      if (end > (until.get(deployment) ?? 0)) until.set(deployment, end)
    },
    isCooling: (deployment) => restLeft(deployment) > 0,
    readyInMs(deployments) {
      let soonest = Infinity
      for (const deployment of deployments) soonest = Math.min(soonest, restLeft(deployment))
      return soonest === Infinity ? 0 : soonest
    },
  }
}

// The training's shuffles, drawn from the seeded generator so that a seed gives the same run.
import type { Random } from '../../proxy/kit/seeded-random.ts'

/** The indexes 0..n-1 in an order drawn from `random` (Fisher–Yates). */
export function shuffledIndexes(n: number, random: Random): Uint32Array {
  const order = new Uint32Array(n)
  for (let i = 0; i < n; i++) order[i] = i
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    const held = order[i]!
    order[i] = order[j]!
    order[j] = held
  }
  return order
}

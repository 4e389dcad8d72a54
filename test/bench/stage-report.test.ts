import t from 'tap'
import { formatRow, type RepeatFigures } from '../../bench/stage-report.ts'
import { STAGES, type Stage } from '../../bench/stages.ts'

function repeat(forwarderUs: number, floorUs: number, coreUs: number, gatewayUs: number): RepeatFigures {
  const shares = Object.fromEntries(Object.keys(STAGES).map((stage) => [stage, stage === 'accept' ? 1 : 0])) as Record<Stage, number>
  return {
    forwarderUs,
    forwarderMainUs: forwarderUs,
    floorUs,
    coreUs,
    gatewayUs,
    gatewayMainUs: gatewayUs,
    gatewayThreadsUs: { v8: 0, libuv: 0, workers: 0, rest: 0 },
    profiledUs: gatewayUs,
    forwarderRps: 1000,
    gatewayRps: 250,
    failed: 0,
    otherCpuPct: undefined,
    shares: { samples: 100, busyMs: 10, shares, unmappedFiles: new Map() },
  }
}

t.test('the report splits the gateway above the forwarder into the spec floor, the core and the promises', async (t) => {
  const text = formatRow('json', [repeat(60, 75, 170, 240), repeat(62, 73, 180, 250), repeat(64, 71, 175, 245)])
  t.match(text, /core and router only total \(all threads\)\s+175\.0\s+170\.0\s+180\.0/)
  // 2 x forwarder - floor per repeat: 45, 51, 57.
  t.match(text, /leaves above the spec floor \(2 x forwarder - floor\): 51\.0 µs \(45\.0–57\.0\)/)
  // core - floor: 95, 107, 104.
  t.match(text, /the core beyond the spec floor \(core only - floor\): 104\.0 µs \(95\.0–107\.0\)/)
  // gateway - core: 70, 70, 70.
  t.match(text, /\(gateway - core only\): 70\.0 µs \(70\.0–70\.0\)/)
  t.match(text, /gateway \/ forwarder CPU per request: 4\.00x/)
})

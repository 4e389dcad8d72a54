import t from 'tap'
import type { CallFrame, CpuProfile, ProfileNode } from '../../bench/cpu-profile.ts'
import { stageSharesOf } from '../../bench/stage-shares.ts'
import type { Stage } from '../../bench/stages.ts'

const ROOT = '/srv/tollgate'
const project = (functionName: string, path: string): CallFrame => ({ functionName, url: `file://${ROOT}/${path}`, lineNumber: 0 })
const pkg = (functionName: string, path: string): CallFrame => ({ functionName, url: `file://${ROOT}/node_modules/${path}`, lineNumber: 0 })
const node = (functionName: string, url: string): CallFrame => ({ functionName, url, lineNumber: 0 })
const native = (functionName: string): CallFrame => ({ functionName, url: '', lineNumber: 0 })

// Each stack, outermost frame first, and how many 100 µs samples end on it.
const STACKS: ReadonlyArray<{ readonly frames: readonly CallFrame[]; readonly samples: number; readonly stage: Stage | 'idle' }> = [
  { frames: [project('handle', 'proxy/http/server.ts')], samples: 2, stage: 'accept' },
  { frames: [project('handle', 'proxy/http/server.ts'), project('runRequest', 'proxy/pipeline/chain.ts')], samples: 1, stage: 'accept' },
  // Innermost first: the metering hook under the chain runner under the server.
  {
    frames: [project('handle', 'proxy/http/server.ts'), project('runRequest', 'proxy/pipeline/chain.ts'), project('onRequest', 'plugins/metering/index.ts')],
    samples: 1,
    stage: 'metering',
  },
  // A helper and an unlisted package count for the stage that called them.
  {
    frames: [
      project('handle', 'proxy/http/server.ts'),
      project('runRequest', 'proxy/pipeline/chain.ts'),
      project('onRequest', 'plugins/metering/index.ts'),
      project('countTokens', 'workers/count-tokens.ts'),
      pkg('encode', 'gpt-tokenizer/esm/index.js'),
    ],
    samples: 2,
    stage: 'metering',
  },
  // A package that serves one stage claims its samples wherever it is called from.
  { frames: [project('handle', 'proxy/http/server.ts'), pkg('info', 'pino/lib/proto.js')], samples: 1, stage: 'log' },
  { frames: [project('handle', 'proxy/http/server.ts'), pkg('inc', 'prom-client/lib/counter.js')], samples: 1, stage: 'metrics' },
  // undici under the router is the model call; Node's native write under it too.
  {
    frames: [project('complete', 'plugins/router/providers/chat-completions.ts'), pkg('request', 'undici/lib/api/api-request.js'), native('writev')],
    samples: 2,
    stage: 'model',
  },
  // A file moved into a wing keeps its stage, and a function of ai-call.ts its own.
  { frames: [project('callModel', 'proxy/pipeline/ai-call.ts')], samples: 1, stage: 'model' },
  { frames: [project('deliverCompletion', 'proxy/ai-call.ts'), project('sendJson', 'proxy/http/respond.ts')], samples: 1, stage: 'rendering' },
  { frames: [project('deliverCompletion', 'proxy/ai-call.ts')], samples: 1, stage: 'rendering' },
  // No project frame: the bucket of the innermost package, GC, or node.
  {
    frames: [node('processImmediate', 'node:internal/timers'), pkg('_resume', 'undici/lib/dispatcher/client.js'), native('writev')],
    samples: 2,
    stage: 'otherUndici',
  },
  { frames: [node('processImmediate', 'node:internal/timers'), pkg('startWriting', 'lmdb/write.js')], samples: 1, stage: 'otherStore' },
  { frames: [native('(garbage collector)')], samples: 1, stage: 'otherGc' },
  { frames: [node('processImmediate', 'node:internal/timers')], samples: 1, stage: 'otherNode' },
  // A helper with no stage around it.
  { frames: [node('processTicksAndRejections', 'node:internal/process/task_queues'), project('next', 'proxy/kit/ids.ts')], samples: 1, stage: 'noStage' },
  { frames: [project('fresh', 'proxy/brand-new.ts')], samples: 1, stage: 'unmapped' },
  { frames: [native('(idle)')], samples: 3, stage: 'idle' },
]

/** The stacks as a profile: a node per distinct stack prefix, samples 100 µs apart in STACKS order. */
function profileOf(stacks: typeof STACKS): CpuProfile {
  const nodes: Array<{ id: number; callFrame: CallFrame; children: number[] }> = [{ id: 1, callFrame: native('(root)'), children: [] }]
  const byPrefix = new Map<string, number>([['', 1]])
  const samples: number[] = []
  for (const { frames, samples: count } of stacks) {
    let parent = 1
    let prefix = ''
    for (const frame of frames) {
      prefix += `|${frame.functionName}@${frame.url}`
      let id = byPrefix.get(prefix)
      if (id === undefined) {
        id = nodes.length + 1
        nodes.push({ id, callFrame: frame, children: [] })
        nodes[parent - 1]!.children.push(id)
        byPrefix.set(prefix, id)
      }
      parent = id
    }
    for (let i = 0; i < count; i++) samples.push(parent)
  }
  // One more idle sample, so the last real one has a time of its own.
  samples.push(nodes.find((n) => n.callFrame.functionName === '(idle)')!.id)
  return { nodes: nodes as readonly ProfileNode[], startTime: 0, endTime: samples.length * 100, samples, timeDeltas: samples.map(() => 100) }
}

const rounded = (shares: Readonly<Record<string, number>>) =>
  Object.fromEntries(
    Object.entries(shares)
      .filter(([, share]) => share > 0)
      .map(([stage, share]) => [stage, Math.round(share * 1000) / 1000]),
  )

t.test('a sample counts for the innermost frame on its stack that claims a stage', async (t) => {
  const result = stageSharesOf(profileOf(STACKS), ROOT)
  // 20 busy samples of 100 µs: each is 5%.
  t.equal(result.samples, 20)
  t.equal(result.busyMs, 2)
  t.same(rounded(result.shares), {
    accept: 0.15,
    metering: 0.15,
    log: 0.05,
    metrics: 0.05,
    model: 0.15,
    rendering: 0.1,
    otherUndici: 0.1,
    otherStore: 0.05,
    otherGc: 0.05,
    otherNode: 0.05,
    noStage: 0.05,
    unmapped: 0.05,
  })
  t.same([...result.unmappedFiles], [['proxy/brand-new.ts', 0.1]], 'files the table does not name are reported')
})

t.test('every stack lands where the table above says', async (t) => {
  for (const stack of STACKS.filter((s) => s.stage !== 'idle')) {
    const alone = stageSharesOf(profileOf([stack, STACKS.at(-1)!]), ROOT)
    t.equal(alone.shares[stack.stage as Stage], 1, stack.frames.map((f) => f.functionName).join(' > '))
  }
})

t.test('a window keeps only the samples taken inside it', async (t) => {
  // Sample times: 100, 200, 300, …; the window holds the first three (the server's own two and
  // the chain runner's one).
  const result = stageSharesOf(profileOf(STACKS), ROOT, { fromUs: 100, toUs: 400 })
  t.equal(result.samples, 3)
  t.same(rounded(result.shares), { accept: 1 })
})

t.test('a profile with no busy sample has zero shares, not NaN', async (t) => {
  const result = stageSharesOf(profileOf([STACKS.at(-1)!]), ROOT)
  t.equal(result.samples, 0)
  t.ok(Object.values(result.shares).every((share) => share === 0))
})

// A gateway in a child process (the CLI, or a script that starts one): resolves with its URL
// once it says it is listening, and is stopped with the test.
import type { Test } from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'

export interface SpawnedGateway {
  readonly child: ChildProcess
  readonly url: string
}

export async function spawnGateway(t: Test, args: readonly string[], env: NodeJS.ProcessEnv = process.env, cwd?: string): Promise<SpawnedGateway> {
  const child = spawn(process.execPath, args, { env, cwd, stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      await once(child, 'exit')
    }
  })
  let output = ''
  child.stdout!.setEncoding('utf8')
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: string) => {
      output += chunk
      const match = /listening on (http:\/\/\S+)/.exec(output)
      if (match !== null) resolve(match[1]!)
    })
    child.once('exit', () => reject(new Error(`the gateway process exited early: ${output}`)))
  })
  return { child, url }
}

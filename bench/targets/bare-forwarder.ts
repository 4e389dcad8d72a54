// Child entry: the bare forwarder in front of the mock upstream.
import { startBareForwarder, type BareForwarderOptions } from '../bare-forwarder.ts'
import { runChild, specOf } from './lifecycle.ts'

await runChild(async () => {
  const forwarder = await startBareForwarder(specOf<BareForwarderOptions>())
  return { info: { url: forwarder.url }, stop: () => forwarder.close() }
})

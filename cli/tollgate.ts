#!/usr/bin/env node
// The operator's command line: `tollgate serve`, `tollgate projects …`, `tollgate keys …`. The
// commands load in a second step, so that `serve` takes the stop signals before the seconds that
// loading the gateway can take on a busy machine.
import { commandOf } from './command-line.ts'
import { takeStopSignals } from './stop-signals.ts'

if (commandOf(process.argv.slice(2)) === 'serve') takeStopSignals()
await import('./main.ts')

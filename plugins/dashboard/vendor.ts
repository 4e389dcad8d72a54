// The front-end libraries the dashboard loads, served from their npm packages by an explicit
// list: nothing else in node_modules is reachable. Each file is read as the package ships it;
// the one bare import (preact/hooks imports "preact") is pointed at the served copy, since a
// page without an import map cannot resolve bare names, and an inline import map would need the
// Content-Security-Policy to allow an inline script.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

interface VendorFile {
  /** Under /dashboard/vendor/. */
  readonly served: string
  readonly pkg: string
  /** Inside the package. */
  readonly file: string
  /** Exact texts to replace, each present exactly once. */
  readonly rewrites?: ReadonlyArray<readonly [string, string]>
}

const VENDOR_FILES: readonly VendorFile[] = [
  { served: 'preact.mjs', pkg: 'preact', file: 'dist/preact.mjs' },
  { served: 'preact-hooks.mjs', pkg: 'preact', file: 'hooks/dist/hooks.mjs', rewrites: [['from"preact"', 'from"./preact.mjs"']] },
  { served: 'htm.mjs', pkg: 'htm', file: 'dist/htm.mjs' },
  { served: 'uplot.mjs', pkg: 'uplot', file: 'dist/uPlot.esm.js' },
  { served: 'uplot.css', pkg: 'uplot', file: 'dist/uPlot.min.css' },
]

const require = createRequire(import.meta.url)

/** The package's folder: up from its main entry to the package.json that names it (not every package exports its package.json). */
function packageRoot(pkg: string): string {
  for (let dir = dirname(require.resolve(pkg)); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === pkg) return dir
  }
  throw new Error(`dashboard: cannot find the folder of the ${pkg} package`)
}

/** The vendor files' texts by served name. Throws at boot when a package is missing or changed shape. */
export function readVendorFiles(): Map<string, string> {
  const texts = new Map<string, string>()
  for (const vendor of VENDOR_FILES) {
    const root = packageRoot(vendor.pkg)
    // A source map is not served, so the comment that names one goes.
    let text = readFileSync(join(root, vendor.file), 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n')
    for (const [from, to] of vendor.rewrites ?? []) {
      const count = text.split(from).length - 1
      if (count !== 1) throw new Error(`dashboard: expected ${JSON.stringify(from)} once in ${vendor.pkg}/${vendor.file}, found it ${count} times`)
      text = text.replace(from, to)
    }
    texts.set(vendor.served, text)
  }
  return texts
}

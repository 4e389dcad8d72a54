// The dashboard's files, read once at boot into memory: the front end's own folder (only the
// file types listed here) and the vendor files. Each gets its content type, an ETag and, when it
// is worth it, a gzip copy. Only these exact paths are ever served.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { extname, join, relative, sep } from 'node:path'
import { gzipSync } from 'node:zlib'
import { readVendorFiles } from './vendor.ts'

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
}

/** Smaller files are sent as they are: compressing them saves less than the header costs. */
const GZIP_MIN_BYTES = 1024

export interface Asset {
  readonly body: Buffer
  readonly gzip: Buffer | undefined
  readonly contentType: string
  readonly etag: string
}

function assetOf(name: string, body: Buffer): Asset {
  const contentType = CONTENT_TYPES[extname(name)]
  if (contentType === undefined) throw new Error(`dashboard: no content type for ${name}`)
  const gzip = body.length >= GZIP_MIN_BYTES ? gzipSync(body, { level: 9 }) : undefined
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`
  return { body, gzip: gzip !== undefined && gzip.length < body.length ? gzip : undefined, contentType, etag }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && CONTENT_TYPES[extname(entry.name)] !== undefined)
    .map((entry) => join(entry.parentPath, entry.name))
}

/** Every servable file by its path below /dashboard/ ('index.html', 'src/main.js', 'vendor/preact.mjs'). */
export function loadAssets(frontEndDir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>()
  for (const file of filesUnder(frontEndDir)) {
    const name = relative(frontEndDir, file).split(sep).join('/')
    assets.set(name, assetOf(name, readFileSync(file)))
  }
  for (const [name, text] of readVendorFiles()) assets.set(`vendor/${name}`, assetOf(name, Buffer.from(text, 'utf8')))
  return assets
}

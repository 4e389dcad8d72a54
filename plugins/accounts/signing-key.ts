// The Ed25519 key that signs access tokens: from config when given, otherwise generated on first
// start and kept in the store as a JWK. Imported once; its RFC 7638 thumbprint is the `kid`.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose'
import type { PluginStore } from '../../proxy/store.ts'
import type { SigningKeyJwk } from './schema.ts'

export const ALGORITHM = 'EdDSA'
const STORED_KEY = 'signing-key'

export interface SigningKey {
  readonly kid: string
  readonly privateKey: CryptoKey
  readonly publicKey: CryptoKey
}

async function storedOrNew(store: PluginStore): Promise<SigningKeyJwk> {
  const meta = store.open<SigningKeyJwk>('meta')
  const existing = meta.get(STORED_KEY)
  if (existing !== undefined) return existing
  const { privateKey } = await generateKeyPair(ALGORITHM, { crv: 'Ed25519', extractable: true })
  const jwk = await exportJWK(privateKey)
  const generated = { kty: 'OKP', crv: 'Ed25519', x: jwk.x!, d: jwk.d! } as const
  // Two processes starting on an empty store keep whichever key was written first.
  return store.transaction(() => {
    const raced = meta.get(STORED_KEY)
    if (raced !== undefined) return raced
    meta.put(STORED_KEY, generated)
    return generated
  })
}

export async function loadSigningKey(store: PluginStore, configured: SigningKeyJwk | undefined): Promise<SigningKey> {
  const jwk = configured ?? (await storedOrNew(store))
  const publicJwk: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x }
  const [privateKey, publicKey, thumbprint] = await Promise.all([
    importJWK({ ...publicJwk, d: jwk.d }, ALGORITHM),
    importJWK(publicJwk, ALGORITHM),
    calculateJwkThumbprint(publicJwk),
  ])
  return { kid: jwk.kid ?? thumbprint, privateKey: privateKey as CryptoKey, publicKey: publicKey as CryptoKey }
}

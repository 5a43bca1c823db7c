import { createHash, randomBytes } from 'node:crypto'

/** API token secrets are shown once; only their SHA-256 is stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** A new random API token secret (prefixed so leaked tokens are recognisable). */
export function newToken(): string {
  return `ingt_${randomBytes(24).toString('hex')}`
}

/** A new DSN public key: 32 lowercase hex, the only shape every SDK accepts. */
export function newPublicKey(): string {
  return randomBytes(16).toString('hex')
}

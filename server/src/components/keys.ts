import { type AuditActor, recordAudit } from '../audit/record.ts'
import { ApiError } from '../errors.ts'
import { newPublicKey } from '../http-kit/tokens.ts'
import type { KeyResolver } from '../ingest/keys.ts'
import type { ProjectKey, Store } from '../store/types.ts'
import { duplicateLabel, labelProblem } from './labels.ts'

/** What component key functions need from the app (`app.services` fits). */
export interface KeyDeps {
  store: Store
  keys: KeyResolver
}

const isUniqueViolation = (err: unknown) => /unique/i.test(String(err))

/**
 * Mints a component DSN key labelled `label` (the label is also the component its events
 * carry). Throws `ApiError` 400 naming the broken label rule, 404 for an unknown project.
 */
export async function createComponentKey(
  deps: KeyDeps,
  projectId: number,
  label: unknown,
): Promise<ProjectKey> {
  if ((await deps.store.getProject(projectId)) === undefined)
    throw new ApiError('not_found', 'no such project')
  const problem = labelProblem(label)
  if (problem !== undefined || typeof label !== 'string')
    throw new ApiError('bad_request', problem ?? 'label is required')
  const active = await deps.store.listKeys(projectId)
  if (active.some((k) => k.revokedAt === null && k.component === label))
    throw new ApiError('conflict', duplicateLabel(label))
  try {
    const key = await deps.store.createKey(projectId, label, label, newPublicKey())
    deps.keys.invalidate()
    return key
  } catch (err) {
    // Two requests raced past the check above: the partial unique index decided.
    if (isUniqueViolation(err)) throw new ApiError('conflict', duplicateLabel(label))
    throw err
  }
}

/**
 * Revokes a key of the project (idempotent): ingest with it answers 403 from then on (at once
 * on this node, within the key cache's 30 s on others). Throws 404 when the project has no such
 * key; returns the key as it is now. Only a revocation that changed something is audited.
 */
export async function revokeProjectKey(
  deps: KeyDeps,
  projectId: number,
  keyId: number,
  actor: AuditActor,
): Promise<ProjectKey> {
  const key = (await deps.store.listKeys(projectId)).find((k) => k.id === keyId)
  if (key === undefined) throw new ApiError('not_found', 'no such key')
  if (key.revokedAt === null) {
    await deps.store.revokeKey(projectId, keyId)
    deps.keys.invalidate()
    await recordAudit(deps.store, actor, 'key.revoke', {
      projectId,
      target: `key:${keyId}`,
      details: { label: key.label },
    })
  }
  const now = (await deps.store.listKeys(projectId)).find((k) => k.id === keyId)
  return now ?? key
}

/** Ids of the project's keys (active or revoked) of a component: the Outcomes filter. */
export async function componentKeyIds(
  store: Store,
  projectId: number,
  component: string,
): Promise<number[]> {
  return (await store.listKeys(projectId)).filter((k) => k.component === component).map((k) => k.id)
}

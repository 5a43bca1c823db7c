import { ApiError } from '../errors.ts'

/**
 * The one check of routes only an instance admin may use (users, invitations, audit log): a
 * principal or UI viewer whose `isAdmin` is true (`users.is_admin`, or `INGEST_ADMIN_TOKEN`).
 * Anyone else gets 403.
 */
export function requireAdmin(who: { isAdmin: boolean } | undefined): void {
  if (who?.isAdmin !== true) throw new ApiError('forbidden', 'Only an admin may do this.')
}

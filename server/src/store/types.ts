/**
 * The storage interface as one import, for code outside `store/` written before it was split
 * into `model.ts` (the records), one `*-store.ts` / `*-types.ts` per concern and `store.ts`
 * (the composite). Files inside `store/` import those directly.
 */
export * from './account-store.ts'
export * from './alert-store.ts'
export * from './artifact-types.ts'
export * from './ingest-store.ts'
export * from './issue-store.ts'
export * from './live-store.ts'
export type { UnitQuota } from './model.ts'
export * from './model.ts'
export * from './privacy-types.ts'
export * from './project-store.ts'
export * from './quota-store.ts'
export * from './retention-store.ts'
export * from './search-types.ts'
export * from './store.ts'
export * from './ui-read-store.ts'

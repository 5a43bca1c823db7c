import type { ArtifactFileToStore } from './artifact-types.ts'

/** One release file as the release-file API lists it (sentry-cli 2.x `releases files list`). */
export interface ReleaseFileRecord {
  id: number
  /** The name it was uploaded as: the URL frames are matched by (`~/app.min.js`). */
  name: string
  /** '' for none. */
  dist: string
  headers: Record<string, string>
  size: number
  sha1: string
  createdAt: number
}

/** A release file as the upload route hands it to the store. */
export interface ReleaseFileToStore {
  teamId: number
  release: string
  dist: string
  name: string
  headers: Record<string, string>
  sha1: string
  /** The file, typed and deflated as one file of an artifact bundle. */
  file: ArtifactFileToStore
  /** Projects (of the team) that may resolve against it: the release's projects. */
  projectIds: readonly number[]
}

/**
 * Release files of sentry-cli 2.x's legacy `releases files` commands (docs/source-maps.md
 * "Release files"). Each is kept as a one-file artifact bundle linked to the release's
 * projects for its release and dist, so frame resolution and retention need nothing of their
 * own; written once for both backends (`queries/release-files.ts`).
 */
export interface ReleaseFileStore {
  /**
   * Stores the file as a one-file bundle with its links, in one transaction. Undefined when the
   * release already has a file of that name and dist (Sentry's 409).
   */
  storeReleaseFile(file: ReleaseFileToStore, now: number): Promise<ReleaseFileRecord | undefined>
  /** The release's files by name then dist then id, `limit` of them after `offset`. */
  listReleaseFiles(
    teamId: number,
    release: string,
    offset: number,
    limit: number,
  ): Promise<ReleaseFileRecord[]>
  /** One file of the release, if it has that id. */
  getReleaseFile(
    teamId: number,
    release: string,
    id: number,
  ): Promise<ReleaseFileRecord | undefined>
  /** Deletes one file of the release (its bundle, links and row); false when there was none. */
  deleteReleaseFile(teamId: number, release: string, id: number): Promise<boolean>
  /** Deletes every file of the release; how many there were. */
  deleteReleaseFiles(teamId: number, release: string): Promise<number>
}

/**
 * Releases recorded through the release API that sentry-cli (`releases new`, `finalize`,
 * `set-commits`, `deploys new`) and the bundler plugins call (docs/api.md "Releases and
 * deploys"). A release belongs to a team (Sentry's organisation) and names the team's projects
 * it ships; events carry the same version in their `release` field.
 */

/** A project a release ships, as the API lists it. */
export interface ReleaseProject {
  id: number
  slug: string
  name: string
}

/** One deploy of a release to an environment. */
export interface Deploy {
  id: number
  environment: string
  name: string | null
  url: string | null
  /** Epoch ms, or null when the client did not say. */
  dateStarted: number | null
  dateFinished: number
}

/** A release as stored, with what the API shows of its projects, commits and deploys. */
export interface ReleaseRecord {
  id: number
  teamId: number
  version: string
  url: string | null
  dateCreated: number
  dateStarted: number | null
  dateReleased: number | null
  /** `open` or `archived` (`sentry-cli releases archive` / `restore`). */
  status: 'open' | 'archived'
  /** Commits recorded by `set-commits` (the newest first), and the newest one's id. */
  commitCount: number
  lastCommit: string | null
  projects: ReleaseProject[]
  deployCount: number
  lastDeploy: Deploy | null
}

/** What a create or update sets; an absent field is left as it is. */
export interface ReleaseChanges {
  url?: string | null | undefined
  dateStarted?: number | null | undefined
  dateReleased?: number | null | undefined
  status?: 'open' | 'archived' | undefined
  /** Replaces the recorded commits: how many, and the newest one's id. */
  commits?: { count: number; last: string | null } | undefined
  /** Projects of the team to add to the release (never removed: Sentry's rule). */
  projectIds?: readonly number[] | undefined
}

/** A deploy as the client reports it. */
export interface DeployToStore {
  environment: string
  name: string | null
  url: string | null
  dateStarted: number | null
  dateFinished: number
}

/** Release records of a team: written once for both backends (`queries/releases.ts`). */
export interface ReleaseStore {
  /**
   * Creates the team's release, or applies `changes` to the one of that version: `created`
   * says which (Sentry answers 201 or 208). One transaction, so two creates race safely.
   */
  upsertRelease(
    teamId: number,
    version: string,
    changes: ReleaseChanges,
    now: number,
  ): Promise<{ release: ReleaseRecord; created: boolean }>
  /** The team's release of this version, if recorded. */
  getRelease(teamId: number, version: string): Promise<ReleaseRecord | undefined>
  /** Applies `changes` to a recorded release; undefined when there is none. */
  updateRelease(
    teamId: number,
    version: string,
    changes: ReleaseChanges,
  ): Promise<ReleaseRecord | undefined>
  /** Removes a release with its deploys and release files; false when there was none. */
  deleteRelease(teamId: number, version: string): Promise<boolean>
  /** The team's releases, newest first, optionally only those shipping one project. */
  listReleases(
    teamId: number,
    projectId: number | undefined,
    limit: number,
  ): Promise<ReleaseRecord[]>
  /** Records a deploy of a recorded release; undefined when the release is not recorded. */
  addDeploy(teamId: number, version: string, deploy: DeployToStore): Promise<Deploy | undefined>
  /** A recorded release's deploys, newest first; undefined when the release is not recorded. */
  listDeploys(teamId: number, version: string): Promise<Deploy[] | undefined>
  /**
   * The newest other release of the team created before this one that has commits
   * (`set-commits` starts its commit range after that release's last commit).
   */
  previousReleaseWithCommits(teamId: number, version: string): Promise<ReleaseRecord | undefined>
}

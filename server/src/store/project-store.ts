import type { Project, ProjectKey } from './model.ts'

/** Projects and their DSN keys. */
export interface ProjectStore {
  createProject(
    name: string,
    slug: string,
    publicKey: string,
    /** Default: the default team. */
    teamId?: number,
  ): Promise<{ project: Project; key: ProjectKey }>
  listProjects(): Promise<Project[]>
  getProject(id: number): Promise<Project | undefined>
  createKey(
    projectId: number,
    label: string,
    component: string | null,
    publicKey: string,
  ): Promise<ProjectKey>
  listKeys(projectId: number): Promise<ProjectKey[]>
  revokeKey(projectId: number, keyId: number): Promise<boolean>
  findKey(publicKey: string): Promise<ProjectKey | undefined>
}

/** The Node flags for the embedded default, SQLite (server-node-flags.mjs says why). */
export declare const SERVER_NODE_FLAGS: readonly string[]
/** The Node flags for a server on PostgreSQL. */
export declare const POSTGRES_SERVER_NODE_FLAGS: readonly string[]
/** The flags for a server on `backend`. */
export declare function nodeFlagsFor(backend: 'sqlite' | 'postgres'): readonly string[]
/** The flags for a server started with this environment: chosen by its backend. */
export declare function serverNodeFlags(env: Record<string, string | undefined>): readonly string[]

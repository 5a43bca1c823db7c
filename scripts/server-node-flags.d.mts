/** The Node flags the ingest server runs with (server-node-flags.mjs says why). */
export declare const SERVER_NODE_FLAGS: readonly string[]

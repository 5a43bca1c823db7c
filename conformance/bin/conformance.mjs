#!/usr/bin/env node
// The `ingest-conformance` bin of the conformance workspace: the same runner as
// `npm run conformance`, with TypeScript loaded through tsx (no build step).
import { register } from 'tsx/esm/api'

register()
await import('../src/runner/cli.ts')

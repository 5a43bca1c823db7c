#!/usr/bin/env node
// A proxy that drops envelope items / event fields on the way to a server: for seeing a
// conformance row fail against a server that loses them (conformance/README.md).
import { register } from 'tsx/esm/api'

register()
await import('../src/tools/strip-proxy.ts')

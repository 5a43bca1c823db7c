import { join } from 'node:path'
import protobuf from 'protobufjs'
import { describe, expect, it } from 'vitest'
import { LOGS_SCHEMA } from './logs-schema.ts'

describe('LOGS_SCHEMA', () => {
  it('is the vendored .proto files, as protobufjs JSON (regenerate: scripts/otlp-schema.ts)', () => {
    const dir = join(import.meta.dirname, 'proto')
    const root = new protobuf.Root()
    root.resolvePath = (_origin, target) => join(dir, target)
    root.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto')
    root.resolveAll()
    const fromProtos = root.toJSON() as { nested?: Record<string, unknown> }
    expect(Object.keys(fromProtos.nested ?? {})).toEqual(['opentelemetry'])
    expect(LOGS_SCHEMA).toEqual(fromProtos)
  })
})

import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { stripEnvelope, stripStoreEvent } from './strip-envelope.ts'

const rules = { items: new Set(['session', 'sessions']), eventFields: new Set(['request']) }

const event = {
  event_id: '0123456789abcdef0123456789abcdef',
  message: 'boom',
  request: { method: 'GET', url: 'http://app/orders/17' },
}

function envelope(items: { header: Record<string, unknown>; payload: string }[]): Buffer {
  const lines = [JSON.stringify({ event_id: event.event_id })]
  for (const item of items) lines.push(JSON.stringify(item.header), item.payload)
  return Buffer.from(`${lines.join('\n')}\n`)
}

function items(body: Buffer): { type: unknown; payload: string }[] {
  const lines = body.toString('utf8').split('\n')
  const out: { type: unknown; payload: string }[] = []
  for (let i = 1; i + 1 < lines.length; i += 2) {
    out.push({ type: JSON.parse(lines[i] ?? '{}').type, payload: lines[i + 1] ?? '' })
  }
  return out
}

describe('stripEnvelope', () => {
  it('drops session items and the event request, keeping the rest as sent', () => {
    const eventJson = JSON.stringify(event)
    const body = envelope([
      { header: { type: 'event', length: Buffer.byteLength(eventJson) }, payload: eventJson },
      { header: { type: 'session' }, payload: '{"sid":"a","status":"ok"}' },
      { header: { type: 'sessions' }, payload: '{"aggregates":[]}' },
      { header: { type: 'client_report' }, payload: '{"discarded_events":[]}' },
    ])
    const { body: out, dropped } = stripEnvelope(body, rules)
    expect(dropped).toEqual(['event.request', 'session', 'sessions'])
    const left = items(out)
    expect(left.map((i) => i.type)).toEqual(['event', 'client_report'])
    expect(JSON.parse(left[0]?.payload ?? '')).toEqual({
      event_id: event.event_id,
      message: 'boom',
    })
    const header = JSON.parse(out.toString('utf8').split('\n')[1] ?? '')
    expect(header.length).toBe(Buffer.byteLength(left[0]?.payload ?? ''))
    expect(left[1]?.payload).toBe('{"discarded_events":[]}')
  })

  it('leaves an envelope without those parts as it was (bar the trailing newline)', () => {
    const body = envelope([{ header: { type: 'client_report' }, payload: '{"x":1}' }])
    const { body: out, dropped } = stripEnvelope(body, rules)
    expect(dropped).toEqual([])
    expect(out.toString('utf8')).toBe(body.toString('utf8').replace(/\n$/, ''))
  })

  it('returns a body that is no envelope unchanged', () => {
    const body = gzipSync('not an envelope')
    expect(stripEnvelope(body, rules)).toEqual({ body, dropped: [] })
  })

  it('strips the request of a store-endpoint event', () => {
    const { body, dropped } = stripStoreEvent(Buffer.from(JSON.stringify(event)), rules)
    expect(dropped).toEqual(['event.request'])
    expect(JSON.parse(body.toString('utf8'))).toEqual({
      event_id: event.event_id,
      message: 'boom',
    })
  })
})

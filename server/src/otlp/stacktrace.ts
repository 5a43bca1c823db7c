/**
 * `exception.stacktrace` is the runtime's own text (OpenTelemetry semantic conventions). Parsing
 * the common formats into frames lets OTLP errors group and show a culprit like SDK exceptions:
 * V8 (Node, Chromium), Firefox/Safari, CPython tracebacks and JVM traces. Anything else stays
 * text only (kept in the event's `otel` context) and the error groups by type and message.
 */
import { fileURLToPath } from 'node:url'
import type { Frame } from '../event/types.ts'

/** Frames (caller first, crash site last) and the header's exception type/value, if any. */
export interface ParsedStack {
  platform: string
  frames: Frame[]
  type?: string
  value?: string
}

/** Frames kept per trace (the innermost ones); SDKs cap similarly. */
const MAX_FRAMES = 250

const V8_LINE = /^\s*at (?:(.+?) \((.+?):(\d+):(\d+)\)|(.+?):(\d+):(\d+))\s*$/
const GECKO_LINE = /^\s*([^@\s]*)@(.+?):(\d+)(?::(\d+))?\s*$/
const PY_FILE = /^\s*File "(.+)", line (\d+)(?:, in (.+))?\s*$/
const JVM_LINE = /^\s*at (?:[\w.-]+\/)*([\w$.<>]+)\.([\w$<>-]+)\((.*?)\)\s*$/
/** `Type: value` or a bare type name on a header line. */
const HEADER = /^([A-Za-z_$][\w$.]*)(?: ?\[[\w ]+\])?(?::\s?([\s\S]*))?$/

function header(lines: readonly string[]): { type?: string; value?: string } {
  const first = lines
    .join('\n')
    .trim()
    .replace(/^Exception in thread "[^"]*" /, '')
  const match = HEADER.exec(first)
  if (match === null || match[1] === undefined) return first === '' ? {} : { value: first }
  const value = match[2]?.trim()
  return value === undefined || value === '' ? { type: match[1] } : { type: match[1], value }
}

/** `file:///x.mjs` → `/x.mjs`, so ESM frames have paths like CommonJS ones. */
function jsPath(location: string): string {
  if (!location.startsWith('file://')) return location
  try {
    return fileURLToPath(location)
  } catch {
    return location
  }
}

function jsFrame(fn: string | undefined, location: string, line: string, col?: string): Frame {
  const path = jsPath(location)
  const frame: Frame = { filename: path, abs_path: path, lineno: Number(line) }
  if (col !== undefined) frame.colno = Number(col)
  const name = fn?.replace(/^async /, '').trim()
  if (name !== undefined && name !== '') frame.function = name
  return frame
}

function parseV8(lines: readonly string[]): ParsedStack | undefined {
  const start = lines.findIndex((l) => V8_LINE.test(l))
  if (start === -1) return undefined
  const frames: Frame[] = []
  for (const line of lines.slice(start)) {
    const m = V8_LINE.exec(line)
    if (m === null) continue
    if (m[2] !== undefined && m[3] !== undefined) frames.push(jsFrame(m[1], m[2], m[3], m[4]))
    else if (m[5] !== undefined && m[6] !== undefined)
      frames.push(jsFrame(undefined, m[5], m[6], m[7]))
  }
  const browser = frames.some((f) => /^https?:\/\//.test(f.abs_path ?? ''))
  return {
    platform: browser ? 'javascript' : 'node',
    frames: frames.reverse().slice(-MAX_FRAMES),
    ...header(lines.slice(0, start)),
  }
}

function parseGecko(lines: readonly string[]): ParsedStack | undefined {
  const matches = lines.map((l) => GECKO_LINE.exec(l))
  if (!matches.some((m) => m !== null)) return undefined
  const frames: Frame[] = []
  for (const m of matches) {
    if (m?.[2] !== undefined && m[3] !== undefined) frames.push(jsFrame(m[1], m[2], m[3], m[4]))
  }
  return { platform: 'javascript', frames: frames.reverse().slice(-MAX_FRAMES) }
}

/** The last traceback of a chain (the exception that was raised), caller first as printed. */
function parsePython(lines: readonly string[]): ParsedStack | undefined {
  let start = -1
  for (const [i, line] of lines.entries())
    if (line.startsWith('Traceback (most recent call last)')) start = i
  if (start === -1) return undefined
  const body = lines.slice(start + 1)
  const frames: Frame[] = []
  let end = body.length
  for (const [i, line] of body.entries()) {
    const m = PY_FILE.exec(line)
    if (m !== null && m[1] !== undefined && m[2] !== undefined) {
      const frame: Frame = { filename: m[1], abs_path: m[1], lineno: Number(m[2]) }
      if (m[3] !== undefined) frame.function = m[3]
      const next = body[i + 1]
      if (next !== undefined && /^\s{4,}\S/.test(next) && !PY_FILE.test(next)) {
        frame.context_line = next.trim()
      }
      frames.push(frame)
      continue
    }
    if (/^\S/.test(line)) {
      end = i
      break
    }
  }
  return {
    platform: 'python',
    frames: frames.slice(-MAX_FRAMES),
    ...header(body.slice(end).filter((l) => l.trim() !== '')),
  }
}

/** The thrown exception of a JVM trace (the part before the first `Caused by:`). */
function parseJvm(lines: readonly string[]): ParsedStack | undefined {
  const start = lines.findIndex((l) => JVM_LINE.test(l))
  if (start === -1) return undefined
  const frames: Frame[] = []
  for (const line of lines.slice(start)) {
    if (/^\s*Caused by:/.test(line)) break
    const m = JVM_LINE.exec(line)
    if (m === null || m[1] === undefined || m[2] === undefined) continue
    const frame: Frame = { module: m[1], function: m[2] }
    const where = /^(.+?):(\d+)$/.exec(m[3] ?? '')
    if (where?.[1] !== undefined) {
      frame.filename = where[1]
      frame.lineno = Number(where[2])
    } else if (m[3] !== undefined && m[3] !== '') {
      frame.filename = m[3]
    }
    frames.push(frame)
  }
  return {
    platform: 'java',
    frames: frames.reverse().slice(-MAX_FRAMES),
    ...header(lines.slice(0, start)),
  }
}

/** Parses a stack trace text; undefined when no known format yields a frame. */
export function parseStacktrace(text: string): ParsedStack | undefined {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  for (const parse of [parsePython, parseV8, parseJvm, parseGecko]) {
    const parsed = parse(lines)
    if (parsed !== undefined && parsed.frames.length > 0) return parsed
  }
  return undefined
}

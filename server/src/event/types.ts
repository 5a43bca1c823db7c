import type { TrimNote } from './bounds.ts'
/**
 * The event shape the service works with after normalisation (`ingest/normalize.ts`).
 * Stock SDKs send many legacy shapes (exception as list or object, tags as pairs or map,
 * message as string or object); everything downstream of the normaliser sees only this one.
 * Unknown fields of the payload are kept in the stored JSON but are not modelled here.
 */

/** Event severity, as the SDKs and Relay name it. */
export type Level = 'fatal' | 'error' | 'warning' | 'info' | 'debug'

/** One stack frame (caller → callee order inside a stack trace). */
export interface Frame {
  filename?: string
  abs_path?: string
  function?: string
  raw_function?: string
  module?: string
  package?: string
  platform?: string
  lineno?: number
  colno?: number
  in_app?: boolean
  context_line?: string
  pre_context?: string[]
  post_context?: string[]
  vars?: Record<string, unknown>
  instruction_addr?: string
  /** Native frames: the symbol and its address, the image's, how addresses are read. */
  symbol?: string
  symbol_addr?: string
  image_addr?: string
  addr_mode?: string
  /** How the SDK found the frame when walking the stack (`cfi`, `scan`, `context`). */
  trust?: string
  /** Where an async stack begins (the JS SDKs mark the frame). */
  stack_start?: boolean
  /** Processing notes (source maps: `symbolicated`, `sourcemap`, `sourcemap_error`). */
  data?: Record<string, unknown>
}

/** A stack trace; the last frame is the crash site. */
export interface Stacktrace {
  frames: Frame[]
  /** CPU registers of the thread when it stopped (native crashes), name → value as sent. */
  registers?: Record<string, string>
}

/**
 * What the operating system said of a native crash (Relay's `MechanismMeta`): the POSIX
 * signal, the C `errno`, the Mach exception, the Cocoa `NSError`. Known fields only.
 */
export interface MechanismMeta {
  signal?: { number?: number; code?: number; name?: string; code_name?: string }
  errno?: { number?: number; name?: string }
  mach_exception?: { exception?: number; code?: number; subcode?: number; name?: string }
  ns_error?: { code?: number; domain?: string }
}

/** Exception mechanism: how the error was caught. */
export interface Mechanism {
  type?: string
  handled?: boolean
  synthetic?: boolean
  description?: string
  help_link?: string
  /** Where in its parent an exception of a group sits (`errors[0]`, `__cause__`). */
  source?: string
  /** Exception groups (Python's ExceptionGroup, JS AggregateError): ids within the event. */
  is_exception_group?: boolean
  exception_id?: number
  parent_id?: number
  /** Free-form data of the integration that caught the error (a databag, scrubbed). */
  data?: Record<string, unknown>
  meta?: MechanismMeta
}

/** One exception of a chain (the list is oldest → newest; the last is the one thrown). */
export interface ExceptionValue {
  type?: string
  value?: string
  module?: string
  mechanism?: Mechanism
  /** The thread that raised it (`threads.values[].id`), a number or a name. */
  thread_id?: number | string
  stacktrace?: Stacktrace
  /** The frames as they came, when `stacktrace` was source-mapped. */
  raw_stacktrace?: Stacktrace
}

/** A breadcrumb, as recorded by the SDK before the event. */
export interface Breadcrumb {
  timestamp?: number
  type?: string
  category?: string
  message?: string
  level?: string
  data?: Record<string, unknown>
}

/** The structured message (Python logging sends the template in `message`). */
export interface LogEntry {
  message?: string
  formatted?: string
  /** Positional parameters, or named ones (`%(name)s` with a mapping, as Python logs them). */
  params?: unknown[] | Record<string, unknown>
}

/** A normalised error or message event. */
export interface NormalizedEvent {
  /** 32 lowercase hex digits, no dashes. */
  event_id: string
  /** Unix seconds (float). */
  timestamp: number
  platform: string
  level: Level
  logger?: string
  /**
   * The culprit the client computed (old SDKs such as raven-js, raven-ruby and raven-php sent
   * one); Sentry shows it before any it derives.
   */
  culprit?: string
  transaction?: string
  server_name?: string
  release?: string
  dist?: string
  environment?: string
  /** Always moved into `logentry` by the normaliser; kept only for display. */
  logentry?: LogEntry
  exception?: { values: ExceptionValue[] }
  /** Event-level stack trace (an event without an exception, e.g. `attachStacktrace`). */
  stacktrace?: Stacktrace
  threads?: {
    values: {
      id?: unknown
      name?: string
      crashed?: boolean
      current?: boolean
      /** The process's main thread (mobile SDKs). */
      main?: boolean
      /** A JVM thread's state (`RUNNABLE`, `BLOCKED` …). */
      state?: string
      stacktrace?: Stacktrace
    }[]
  }
  fingerprint?: string[]
  /** Tags as ordered pairs (SDKs send an object or a list of pairs). */
  tags: [string, string][]
  user?: Record<string, unknown>
  contexts?: Record<string, unknown>
  breadcrumbs?: { values: Breadcrumb[] }
  request?: Record<string, unknown>
  /**
   * The SDK's name and version. Its integrations and packages are not kept: the Node SDK's lists
   * alone made the bench's stored event 2.5 times larger (296 → 756 bytes).
   */
  sdk?: { name?: string; version?: string }
  extra?: Record<string, unknown>
  /** What normalisation cut or dropped (Relay's processing errors); see event/bounds.ts. */
  errors?: TrimNote[]
}

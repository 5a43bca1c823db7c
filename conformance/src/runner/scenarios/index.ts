/** Every scenario implementation by id: the matrix's columns must all be here. */
import { checkIn, missedRun } from './crons.ts'
import { compressed, exceptionGroups, landsAndGroups, messagesGroup } from './events.ts'
import { sessions } from './health.ts'
import { otlpLogs } from './otlp.ts'
import { backOff, clientReports, partialResend, unsupportedItems } from './quota.ts'
import { lateInit, requestErrors, requestSessions } from './requests.ts'
import type { Scenario } from './scenario.ts'
import { sourceMaps } from './source-maps.ts'

/** The registry the runner looks scenarios up in. */
export const SCENARIOS: ReadonlyMap<string, Scenario> = new Map(
  [
    landsAndGroups,
    messagesGroup,
    exceptionGroups,
    sessions,
    checkIn,
    missedRun,
    clientReports,
    backOff,
    partialResend,
    unsupportedItems,
    compressed,
    otlpLogs,
    requestErrors,
    requestSessions,
    lateInit,
    sourceMaps,
  ].map((s) => [s.id, s]),
)

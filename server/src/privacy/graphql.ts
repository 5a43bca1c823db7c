/**
 * GraphQL requests, scrubbed as Relay's `scrub_graphql` does: a request the SDK marks
 * `api_target: "graphql"` (sentry-python's Strawberry, Ariadne and GQL integrations,
 * sentry-javascript's GraphQL client integration) carries the operation's variables in
 * `request.data.variables`, and those are the user's input (a login mutation's password, a
 * card number) under names no key rule knows. Every variable's value is filtered, and so is
 * each value under the same name in the answer (`contexts.response.data.data`); an answer to
 * a query without variables (the values written into the query itself) is dropped whole.
 */
import { isObj, type Obj } from '../event/json.ts'
import type { NormalizedEvent } from '../event/types.ts'
import { FILTERED } from './patterns.ts'

/** The remark rule of what this filters. */
export const GRAPHQL_RULE = '@graphql'

/** Where a change is recorded: the event's path, the rule and the remark's kind. */
export type Remark = (path: readonly (string | number)[], rule: string, kind: 's' | 'x') => void

/** The request body as an object: sent as one, or as a JSON text (then parsed). */
function bodyObject(data: unknown): { body: Obj; text: boolean } | undefined {
  if (isObj(data)) return { body: data, text: false }
  if (typeof data !== 'string' || !data.trimStart().startsWith('{')) return undefined
  try {
    const parsed: unknown = JSON.parse(data)
    return isObj(parsed) ? { body: parsed, text: true } : undefined
  } catch {
    return undefined
  }
}

/** Each value under one of `names` in `data`, at any depth of objects, filtered. */
function filterNamed(
  data: Obj,
  names: ReadonlySet<string>,
  path: (string | number)[],
  remark: Remark,
): Obj {
  let out: Obj | undefined
  for (const k in data) {
    if (!Object.hasOwn(data, k)) continue
    const v = data[k]
    let x: unknown = v
    if (isObj(v)) x = filterNamed(v, names, [...path, k], remark)
    else if (names.has(k) && v !== null && v !== FILTERED) {
      x = FILTERED
      remark([...path, k], GRAPHQL_RULE, 's')
    }
    if (x !== v) {
      out ??= { ...data }
      out[k] = x
    }
  }
  return out ?? data
}

/** Scrubs a GraphQL request's variables and the answer's matching values, in place. */
export function scrubGraphql(event: NormalizedEvent, remark: Remark): void {
  const request = event.request
  const target = request?.['api_target']
  if (request === undefined || typeof target !== 'string' || target.toLowerCase() !== 'graphql')
    return
  const found = bodyObject(request['data'])
  if (found === undefined) return
  const variables = found.body['variables']
  const names = new Set<string>()
  if (isObj(variables)) {
    const next: Obj = {}
    for (const k in variables) {
      if (!Object.hasOwn(variables, k)) continue
      names.add(k)
      next[k] = FILTERED
      if (variables[k] !== FILTERED) remark(['request', 'data', 'variables', k], GRAPHQL_RULE, 's')
    }
    const body = { ...found.body, variables: next }
    event.request = { ...request, data: found.text ? JSON.stringify(body) : body }
  }
  const contexts = event.contexts as Obj | undefined
  const response = contexts?.['response']
  const data = isObj(response) ? response['data'] : undefined
  if (contexts === undefined || !isObj(response) || !isObj(data) || !isObj(data['data'])) return
  const path = ['contexts', 'response', 'data', 'data']
  let answer: Obj | undefined
  if (names.size > 0) answer = filterNamed(data['data'], names, path, remark)
  else remark(path, GRAPHQL_RULE, 'x')
  const nextData: Obj = { ...data }
  if (answer === undefined) delete nextData['data']
  else nextData['data'] = answer
  event.contexts = { ...contexts, response: { ...response, data: nextData } }
}

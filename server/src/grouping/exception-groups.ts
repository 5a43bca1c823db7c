/**
 * Exception groups (Python's `ExceptionGroup`, JavaScript's `AggregateError`, .NET's
 * `AggregateException`) reduced before they group, as protocol.md §8.4 and Sentry do: a group
 * raised around three copies of one error is that error, whatever the count or order of its
 * members; a group of different errors is one of each of them plus the group itself. Without
 * this, every different count or order of the same members would open a new issue.
 */
import type { ExceptionValue } from '../event/types.ts'

/** Which exceptions of a chain group, in what order, and the one the issue is named after. */
export interface ReducedChain {
  /** Indices into the chain, in the order their grouping values are hashed. */
  order: number[]
  /** The exception that labels the issue when the group reduces to one member; else none. */
  main: number | undefined
}

const isGroup = (e: ExceptionValue | undefined): boolean =>
  e?.mechanism?.is_exception_group === true

/**
 * Whether a chain holds an exception group: only then can `reduceExceptionGroups` change it, so
 * callers skip the rest (every other event pays this one scan).
 */
export const hasExceptionGroup = (chain: readonly ExceptionValue[]): boolean =>
  chain.length > 1 && chain.some(isGroup)

/**
 * The reduced chain, or `undefined` when the chain is grouped as it is: fewer than two
 * exceptions, none an exception group, or a tree that cannot be rebuilt (an exception without an
 * `exception_id`, one id used twice, no root with id 0). The tree comes from `parent_id`; a
 * node's first child is the last of its children in the list (SDKs list the thrown exception
 * last, so that is the first member of the group as raised). The members that matter are the
 * first exceptions below the root that are not groups themselves, taken in type order
 * (descending, as Sentry sorts them) and kept once per `keyOf` (what the exception alone
 * contributes to the hash). One distinct member: it and the path of first children below it
 * (its causes), and it names the issue. Several: one of each, then the root group. A hostile
 * tree (cycles, self-parents, depth) is walked without recursion and visits each node once.
 */
export function reduceExceptionGroups(
  chain: readonly ExceptionValue[],
  keyOf: (index: number) => string,
): ReducedChain | undefined {
  if (!hasExceptionGroup(chain)) return undefined
  const byId = new Map<number, number>()
  const children = new Map<number, number[]>()
  for (let i = chain.length - 1; i >= 0; i--) {
    const mechanism = chain[i]?.mechanism
    const id = mechanism?.exception_id
    if (id === undefined || byId.has(id)) return undefined
    byId.set(id, i)
    const parent = mechanism?.parent_id
    if (parent !== undefined && parent !== id) {
      const list = children.get(parent)
      if (list === undefined) children.set(parent, [i])
      else list.push(i)
    }
  }
  const root = byId.get(0)
  if (root === undefined) return undefined
  const childrenOf = (i: number): number[] =>
    children.get(chain[i]?.mechanism?.exception_id ?? -1) ?? []

  const members: number[] = []
  const seen = new Set<number>()
  const pending = [root]
  for (let i = pending.pop(); i !== undefined; i = pending.pop()) {
    if (seen.has(i)) continue
    seen.add(i)
    if (!isGroup(chain[i])) {
      members.push(i)
      continue
    }
    const kids = childrenOf(i)
    for (let k = kids.length - 1; k >= 0; k--) pending.push(kids[k] as number)
  }
  const typeOf = (i: number) => chain[i]?.type ?? ''
  members.sort((a, b) => (typeOf(a) < typeOf(b) ? 1 : typeOf(a) > typeOf(b) ? -1 : 0))
  const keys = new Set<string>()
  const distinct = members.filter((i) => {
    const key = keyOf(i)
    if (keys.has(key)) return false
    keys.add(key)
    return true
  })

  const only = distinct.length === 1 ? distinct[0] : undefined
  if (only === undefined) return { order: [...distinct, root], main: undefined }
  const order: number[] = []
  const onPath = new Set<number>()
  for (let i: number | undefined = only; i !== undefined && !onPath.has(i); ) {
    onPath.add(i)
    order.push(i)
    i = childrenOf(i)[0]
  }
  return { order, main: only }
}

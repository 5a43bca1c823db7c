import { describe, expect, it } from 'vitest'
import { normalizedEvent } from '../../test/support/normalized-event.ts'
import type { ExceptionValue, Frame } from '../event/types.ts'
import { reduceExceptionGroups } from './exception-groups.ts'
import { groupEvent } from './index.ts'
import { groupingValuesV1 } from './strategies.ts'

const frame = (fn: string, lineno: number): Frame => ({
  filename: 'shop/batch.py',
  module: 'shop.batch',
  function: fn,
  lineno,
  in_app: true,
})

/** An exception with ids; `group` marks an exception group, `parent` its place in the tree. */
function exc(
  type: string,
  id: number,
  parent?: number,
  opts: { group?: boolean; value?: string; fn?: string } = {},
): ExceptionValue {
  return {
    type,
    value: opts.value ?? `${type} ${id}`,
    stacktrace: { frames: [frame('run', 1), frame(opts.fn ?? `raise_${type}`, 2)] },
    mechanism: {
      type: id === 0 ? 'generic' : 'chained',
      exception_id: id,
      ...(parent === undefined ? {} : { parent_id: parent }),
      ...(opts.group === true ? { is_exception_group: true } : {}),
    },
  }
}

const event = (values: ExceptionValue[]) => normalizedEvent({ exception: { values } })

/** As SDKs list them: the thrown group last, its members before it in reverse order. */
const group = (...members: ExceptionValue[]): ExceptionValue[] => [
  ...members.reverse(),
  exc('ExceptionGroup', 0, undefined, { group: true, value: 'batch failed' }),
]

/** Each exception's own values: its type (and the frames, the same for all here). */
const byType = (chain: readonly ExceptionValue[]) => (i: number) => chain[i]?.type ?? ''

describe('reduceExceptionGroups', () => {
  it('reduces a group of copies of one error to that error, the first member naming the issue', () => {
    const chain = group(exc('ValueError', 1, 0), exc('ValueError', 2, 0), exc('ValueError', 3, 0))
    const reduced = reduceExceptionGroups(chain, byType(chain))
    expect(reduced?.main).toBeDefined()
    expect(chain[reduced?.main ?? -1]?.mechanism?.exception_id).toBe(1)
    expect(reduced?.order).toEqual([reduced?.main])
  })

  it('keeps one of each distinct member, in descending type order, then the root group', () => {
    const chain = group(exc('KeyError', 1, 0), exc('ValueError', 2, 0), exc('KeyError', 3, 0))
    const reduced = reduceExceptionGroups(chain, byType(chain))
    expect(reduced?.main).toBeUndefined()
    expect(reduced?.order.map((i) => chain[i]?.type)).toEqual([
      'ValueError',
      'KeyError',
      'ExceptionGroup',
    ])
  })

  it('takes the members of nested groups, not the inner groups', () => {
    const chain = [
      exc('KeyError', 4, 3),
      exc('TypeError', 3, 0),
      exc('ValueError', 2, 1),
      exc('ExceptionGroup', 1, 0, { group: true }),
      exc('ExceptionGroup', 0, undefined, { group: true }),
    ]
    const reduced = reduceExceptionGroups(chain, byType(chain))
    // TypeError's cause (KeyError, parent 3) is not a member of a group: below a member.
    expect(reduced?.order.map((i) => chain[i]?.mechanism?.exception_id)).toEqual([2, 3, 0])
  })

  it("follows the lone member's first-child path: its causes group with it", () => {
    const chain = [
      exc('OSError', 2, 1),
      exc('ValueError', 1, 0),
      exc('ExceptionGroup', 0, undefined, { group: true }),
    ]
    const reduced = reduceExceptionGroups(chain, byType(chain))
    expect(reduced?.order.map((i) => chain[i]?.type)).toEqual(['ValueError', 'OSError'])
  })

  it('leaves chains without a group or without a rebuildable tree as they are', () => {
    const plain = [exc('KeyError', 1, 0), exc('ValueError', 0)]
    expect(reduceExceptionGroups(plain, byType(plain))).toBeUndefined()
    const lone = [exc('ExceptionGroup', 0, undefined, { group: true })]
    expect(reduceExceptionGroups(lone, byType(lone))).toBeUndefined()
    const noId = group(exc('KeyError', 1, 0))
    delete noId[0]?.mechanism?.exception_id
    expect(reduceExceptionGroups(noId, byType(noId))).toBeUndefined()
    const twice = group(exc('KeyError', 1, 0), exc('ValueError', 1, 0))
    expect(reduceExceptionGroups(twice, byType(twice))).toBeUndefined()
    const noRoot = [exc('KeyError', 2, 1), exc('ExceptionGroup', 1, undefined, { group: true })]
    expect(reduceExceptionGroups(noRoot, byType(noRoot))).toBeUndefined()
  })

  it('walks hostile trees once, without recursion: cycles, self-parents, depth', () => {
    const cycle = [
      exc('ExceptionGroup', 1, 0, { group: true }),
      exc('ExceptionGroup', 0, 1, { group: true }),
    ]
    expect(reduceExceptionGroups(cycle, byType(cycle))?.order).toEqual([1])
    const self = [exc('KeyError', 1, 1), exc('ExceptionGroup', 0, 0, { group: true })]
    expect(reduceExceptionGroups(self, byType(self))?.order).toEqual([1])
    const deep: ExceptionValue[] = []
    for (let id = 50_000; id > 0; id--) deep.push(exc('ValueError', id, id - 1))
    deep.push(exc('ExceptionGroup', 0, undefined, { group: true }))
    const reduced = reduceExceptionGroups(deep, byType(deep))
    expect(reduced?.order).toHaveLength(50_000)
  })
})

describe('exception groups in the v1 grouping and the issue title', () => {
  it('groups the same members together whatever their count and order', () => {
    const a = group(exc('ValueError', 1, 0), exc('ValueError', 2, 0))
    const b = group(exc('ValueError', 1, 0, { value: 'another value' }))
    expect(groupEvent(event(a)).hash).toBe(groupEvent(event(b)).hash)
    const mixed1 = group(exc('KeyError', 1, 0), exc('ValueError', 2, 0))
    const mixed2 = group(exc('ValueError', 1, 0), exc('KeyError', 2, 0), exc('KeyError', 3, 0))
    expect(groupEvent(event(mixed1)).hash).toBe(groupEvent(event(mixed2)).hash)
    expect(groupEvent(event(mixed1)).hash).not.toBe(groupEvent(event(a)).hash)
  })

  it('tells members apart by their stack traces, not only their types', () => {
    const one = group(exc('ValueError', 1, 0, { fn: 'parse' }))
    const two = group(exc('ValueError', 1, 0, { fn: 'parse' }), exc('ValueError', 2, 0))
    expect(groupEvent(event(one)).hash).not.toBe(groupEvent(event(two)).hash)
  })

  it('names the issue after the lone distinct member, else after the group', () => {
    const same = group(exc('ValueError', 1, 0, { value: 'bad item 1' }), exc('ValueError', 2, 0))
    expect(groupEvent(event(same)).title).toBe('ValueError: bad item 1')
    const mixed = group(exc('KeyError', 1, 0), exc('ValueError', 2, 0))
    expect(groupEvent(event(mixed)).title).toBe('ExceptionGroup: batch failed')
  })

  it('carries the hash of the chain as it was grouped before the reduction, when it differs', () => {
    const chain = group(exc('ValueError', 1, 0), exc('ValueError', 2, 0))
    const grouped = groupEvent(event(chain))
    // Without the group flag nothing is reduced: the hash v1 gave the chain before.
    const unflagged = chain.map((e) => {
      const mechanism = { ...e.mechanism }
      delete mechanism.is_exception_group
      return { ...e, mechanism }
    })
    expect(grouped.previousHash).toBe(groupEvent(event(unflagged)).hash)
    expect(grouped.previousHash).not.toBe(grouped.hash)
    // Reduced to what the list held already (one of each member, the group last): none.
    const kept = group(exc('KeyError', 1, 0), exc('ValueError', 2, 0))
    expect(kept.map((e) => e.type)).toEqual(['ValueError', 'KeyError', 'ExceptionGroup'])
    expect(groupEvent(event(kept)).previousHash).toBeUndefined()
    expect(groupEvent(event(unflagged)).previousHash).toBeUndefined()
  })

  it('leaves a chain without groups in list order', () => {
    const chain = [exc('KeyError', 1, 0), exc('ValueError', 0)]
    const values = groupingValuesV1(event(chain))
    expect(values.indexOf('type:KeyError')).toBeLessThan(values.indexOf('type:ValueError'))
  })
})

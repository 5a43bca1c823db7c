import { describe, expect, it } from 'vitest'
import { join, raw, renderNumbered, renderQuestion, sql } from './statement.ts'

describe('sql statements', () => {
  it('binds every interpolated value and renders each dialect', () => {
    const s = sql`SELECT * FROM t WHERE a = ${1} AND b = ${'x'}`
    expect(s.values).toEqual([1, 'x'])
    expect(renderQuestion(s)).toBe('SELECT * FROM t WHERE a = ? AND b = ?')
    expect(renderNumbered(s)).toBe('SELECT * FROM t WHERE a = $1 AND b = $2')
  })

  it('inlines fragments with their values in order, and raw text as text', () => {
    const cond = sql`b = ${2}`
    const s = sql`SELECT ${raw('id, name')} FROM t WHERE a = ${1} AND ${cond} AND c = ${3}`
    expect(s.values).toEqual([1, 2, 3])
    expect(renderNumbered(s)).toBe('SELECT id, name FROM t WHERE a = $1 AND b = $2 AND c = $3')
  })

  it('joins fragments, an empty list giving nothing', () => {
    const s = sql`INSERT INTO t VALUES ${join([sql`(${1}, ${2})`, sql`(${3}, ${4})`], ', ')}`
    expect(renderNumbered(s)).toBe('INSERT INTO t VALUES ($1, $2), ($3, $4)')
    expect(s.values).toEqual([1, 2, 3, 4])
    expect(renderQuestion(join([], ' AND '))).toBe('')
  })

  it('never splices a value into the text', () => {
    const s = sql`SELECT ${"'; DROP TABLE t; --"}`
    expect(renderQuestion(s)).toBe('SELECT ?')
  })
})

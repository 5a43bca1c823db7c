import { describe, expect, it } from 'vitest'
import { escapeHtml } from '../http-kit/escape-html.ts'
import { html, join, raw } from './html.ts'

describe('html``', () => {
  it('escapes interpolated text in content and attributes', () => {
    const evil = `<script>alert("x")</script>' onmouseover='alert(1)' \`&`
    const out = html`<p title="${evil}">${evil}</p>`.toString()
    expect(out).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;alert(1)&#39; &#96;&amp;">' +
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;alert(1)&#39; &#96;&amp;</p>',
    )
    expect(out).not.toContain('<script>')
  })

  it('keeps nested templates as markup but escapes their values', () => {
    const items = ['<b>', 'ok']
    const out = html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`.toString()
    expect(out).toBe('<ul><li>&lt;b&gt;</li><li>ok</li></ul>')
  })

  it('renders nothing for null, undefined and false, and numbers as text', () => {
    expect(html`${null}${undefined}${false}${0}${12.5}`.toString()).toBe('012.5')
  })

  it('escapes a string that looks like markup even when it came from a SafeHtml toString', () => {
    const inner = html`<i>x</i>`
    expect(html`${String(inner)}`.toString()).toBe('&lt;i&gt;x&lt;/i&gt;')
    expect(html`${inner}`.toString()).toBe('<i>x</i>')
  })

  it('raw() and join() behave as documented', () => {
    expect(html`${raw('<hr>')}`.toString()).toBe('<hr>')
    expect(join(['<a>', html`<b></b>`], ', ').toString()).toBe('&lt;a&gt;, <b></b>')
    expect(escapeHtml('a&b')).toBe('a&amp;b')
  })
})

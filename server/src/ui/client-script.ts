import { ISSUE_COUNT_CAP } from '../store/types.ts'

/**
 * The UI's only script, served at `/ui/static/app.js` (same origin, so the CSP can forbid every
 * inline script). It enhances server-rendered pages and is never needed to read them:
 * live refresh of the issue list over Server-Sent Events, a new-events notice on issue pages,
 * copy buttons, select-all for bulk actions and confirmations for destructive buttons.
 */
export const CLIENT_JS = `
(function () {
  'use strict'
  function live(project, onStored) {
    if (!window.EventSource) return
    var note = document.querySelector('[data-live-note]')
    var es = new EventSource('/ui/live?project=' + encodeURIComponent(project))
    es.addEventListener('open', function () { if (note) { note.classList.add('on'); note.textContent = 'Live' } })
    es.addEventListener('error', function () { if (note) { note.classList.remove('on'); note.textContent = 'Reconnecting…' } })
    es.addEventListener('stored', function (e) {
      var data = {}
      try { data = JSON.parse(e.data) } catch (err) { return }
      onStored(data)
    })
  }

  var list = document.getElementById('issue-list')
  if (list) {
    var busy = false, again = false, timer = null
    var refresh = function () {
      if (busy) { again = true; return }
      busy = true
      var before = {}
      list.querySelectorAll('tr[data-issue]').forEach(function (tr) { before[tr.getAttribute('data-issue')] = true })
      var checked = {}
      list.querySelectorAll('input[name=issue]:checked').forEach(function (i) { checked[i.value] = true })
      fetch(list.getAttribute('data-fragment'), { credentials: 'same-origin', headers: { accept: 'text/html', 'x-ui-fragment': '1' } })
        .then(function (r) {
          if (r.status === 401) window.location.reload()
          if (!r.ok) return Promise.reject(r.status)
          var counts = {}
          try { counts = JSON.parse(r.headers.get('x-tab-counts') || '{}') } catch (err) {}
          Object.keys(counts).forEach(function (tab) {
            var el = document.querySelector('.tabs a[data-tab="' + tab + '"] .count')
            if (el && typeof counts[tab] === 'number') el.textContent = counts[tab] > ${ISSUE_COUNT_CAP} ? '${ISSUE_COUNT_CAP.toLocaleString('en-US')}+' : counts[tab].toLocaleString('en-US')
          })
          return r.text()
        })
        .then(function (text) {
          list.innerHTML = text
          list.querySelectorAll('input[name=issue]').forEach(function (i) { if (checked[i.value]) i.checked = true })
          list.querySelectorAll('tr[data-issue]').forEach(function (tr) {
            if (!before[tr.getAttribute('data-issue')]) tr.classList.add('fresh')
          })
          document.dispatchEvent(new CustomEvent('issues:refreshed'))
        })
        .catch(function () {})
        .then(function () { busy = false; if (again) { again = false; refresh() } })
    }
    live(list.getAttribute('data-project'), function () {
      if (timer) return
      timer = setTimeout(function () { timer = null; refresh() }, 120)
    })
  }

  var detail = document.querySelector('[data-live-issue]')
  if (detail) {
    var issue = detail.getAttribute('data-live-issue'), seen = 0
    live(detail.getAttribute('data-project'), function (data) {
      if (String(data.issueId) !== issue) return
      seen++
      var banner = document.getElementById('new-events')
      if (!banner) return
      banner.hidden = false
      banner.querySelector('[data-count]').textContent = String(seen)
    })
  }

  document.addEventListener('click', function (e) {
    var t = e.target
    if (!(t instanceof Element)) return
    var copy = t.closest('[data-copy]')
    if (copy) {
      var field = document.getElementById(copy.getAttribute('data-copy'))
      if (!field) return
      var text = field.value !== undefined ? field.value : field.textContent
      var done = function () { var old = copy.textContent; copy.textContent = 'Copied'; setTimeout(function () { copy.textContent = old }, 1200) }
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, function () {})
      else if (field.select) { field.select(); try { document.execCommand('copy'); done() } catch (err) {} }
      return
    }
    var all = t.closest('[data-select-all]')
    if (all) {
      var on = all.checked
      document.querySelectorAll('#issue-list input[name=issue]').forEach(function (i) { i.checked = on })
    }
  })

  document.addEventListener('submit', function (e) {
    var form = e.target
    if (!(form instanceof HTMLFormElement)) return
    var ask = form.getAttribute('data-confirm')
    if (ask && !window.confirm(ask)) e.preventDefault()
  })
})()
`

import type { FastifyReply } from 'fastify'
import type { Action } from '../http/permissions.ts'
import type { Project } from '../store/types.ts'
import { csrfInput } from './csrf.ts'
import { html, type SafeHtml } from './html.ts'

/** The sections of a project's navigation. */
export type Section =
  | 'issues'
  | 'releases'
  | 'crons'
  | 'outcomes'
  | 'settings'
  | 'setup'
  | 'projects'
  | 'account'

/** Who is looking and where: what every page's frame needs. */
export interface PageContext {
  /** The signed-in user's e-mail, or a label for token access. */
  who: string
  /** The session's CSRF token ('' when the request came with a bearer token). */
  csrf: string
  /** Whether the viewer came through a browser session (shows the sign-out button). */
  session: boolean
  projects: Project[]
  project?: Project | undefined
  section: Section
  /** Whether the viewer is an instance admin (shows the Users and Audit log links). */
  admin?: boolean
  /** What the viewer may do here (in the page's project's team, else instance-wide). */
  can: readonly Action[]
}

const SECTIONS: { id: Section; label: string; path: string; needs: Action }[] = [
  { id: 'issues', label: 'Issues', path: 'issues', needs: 'project:read' },
  { id: 'releases', label: 'Releases', path: 'releases', needs: 'project:read' },
  { id: 'crons', label: 'Crons', path: 'crons', needs: 'project:read' },
  { id: 'outcomes', label: 'Outcomes', path: 'outcomes', needs: 'project:read' },
  { id: 'settings', label: 'Settings', path: 'settings', needs: 'project:admin' },
  { id: 'setup', label: 'Setup', path: 'setup', needs: 'project:read' },
]

/** A project's page URL. */
export const projectUrl = (projectId: number, path: string): string =>
  `/projects/${projectId}/${path}`

/** A POST form with the CSRF token; `body` holds the fields and buttons. */
export function postForm(
  ctx: PageContext,
  action: string,
  body: SafeHtml,
  opts: { className?: string; confirm?: string; id?: string } = {},
): SafeHtml {
  return html`<form method="post" action="${action}" class="${opts.className ?? ''}"${
    opts.confirm === undefined ? '' : html` data-confirm="${opts.confirm}"`
  }${opts.id === undefined ? '' : html` id="${opts.id}"`}>${csrfInput(ctx.csrf)}${body}</form>`
}

function header(ctx: PageContext): SafeHtml {
  const p = ctx.project
  const nav =
    p === undefined
      ? html`<nav><a href="/projects" class="${ctx.section === 'projects' ? 'on' : ''}">Projects</a></nav>`
      : html`<nav>${SECTIONS.filter((s) => ctx.can.includes(s.needs)).map(
          (s) =>
            html`<a href="${projectUrl(p.id, s.path)}" class="${ctx.section === s.id ? 'on' : ''}">${s.label}</a>`,
        )}</nav>`
  const switcher = html`<details class="switch"><summary>${p?.name ?? 'Projects'} ▾</summary><ul>
    ${ctx.projects.map((x) => html`<li><a href="${projectUrl(x.id, 'issues')}">${x.name}</a></li>`)}
    <li><a href="/projects">All projects…</a></li></ul></details>`
  const signOut = ctx.session
    ? postForm(ctx, '/logout', html`<button type="submit">Sign out</button>`)
    : ''
  return html`<header class="top"><a class="brand" href="/projects">ingest</a>${switcher}${nav}
    <div class="who"><span>${ctx.who}</span>${ctx.admin === true ? html`<a href="/settings/users">Users</a><a href="/settings/audit-log">Audit log</a>` : ''}<a href="/settings/teams">Teams</a><a href="/account/tokens">API tokens</a>${signOut}</div></header>`
}

/** A whole page: the frame (header, navigation) around `body`. */
export function layout(
  ctx: PageContext | undefined,
  title: string,
  body: SafeHtml,
  flash?: { text: string; error?: boolean },
): SafeHtml {
  const note =
    flash === undefined
      ? ''
      : html`<div class="flash ${flash.error ? 'error' : ''}">${flash.text}</div>`
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ingest</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/ui/static/app.css">
<script src="/ui/static/app.js" defer></script></head>
<body>${ctx === undefined ? '' : header(ctx)}<main>${note}${body}</main></body></html>`
}

/** Sends a page as HTML with the UI's security headers. */
export function sendPage(reply: FastifyReply, page: SafeHtml, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page.value)
}

/** The UI's whole stylesheet, served at `/ui/static/app.css` (no build step, no framework). */
export const CSS = `
:root {
  --fg: #1d2330; --muted: #5d6675; --line: #dde1e7; --bg: #f6f7f9; --card: #fff;
  --accent: #2f5bd3; --accent-bg: #e8eefc; --red: #b42318; --red-bg: #fdecea;
  --amber: #8a5a00; --amber-bg: #fff4d6; --green: #1f7a3d; --green-bg: #e6f4ea;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
* { box-sizing: border-box; }
html { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
body { margin: 0; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
h1 { font-size: 1.45rem; margin: 0 0 .25rem; word-break: break-word; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1rem; margin: 1rem 0 .4rem; }
code, pre, .mono { font-family: var(--mono); font-size: 12.5px; }
pre { background: #f2f4f7; border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; overflow-x: auto; margin: .4rem 0; white-space: pre-wrap; word-break: break-word; }
.top { display: flex; align-items: center; gap: 1.25rem; padding: .55rem 1.25rem; background: #1d2330; color: #fff; flex-wrap: wrap; }
.top a { color: #dfe6f5; }
.top .brand { font-weight: 700; color: #fff; letter-spacing: .02em; }
.top nav { display: flex; gap: .15rem; flex-wrap: wrap; }
.top nav a { padding: .3rem .6rem; border-radius: 5px; }
.top nav a.on, .top nav a:hover { background: #39425a; color: #fff; text-decoration: none; }
.top .who { margin-left: auto; display: flex; align-items: center; gap: .75rem; color: #b8c1d3; }
.top .who form { margin: 0; }
.top .who button { background: transparent; color: #dfe6f5; border: 1px solid #4b5570; padding: .2rem .6rem; }
.switch { position: relative; }
.switch summary { cursor: pointer; list-style: none; padding: .3rem .6rem; border: 1px solid #4b5570; border-radius: 5px; color: #fff; }
.switch summary::-webkit-details-marker { display: none; }
.switch ul { position: absolute; z-index: 5; margin: .3rem 0 0; padding: .3rem 0; list-style: none; background: var(--card); border: 1px solid var(--line); border-radius: 6px; min-width: 14rem; box-shadow: 0 6px 18px rgba(0,0,0,.12); }
.switch li a { display: block; padding: .35rem .8rem; color: var(--fg); }
.switch li a:hover { background: var(--accent-bg); text-decoration: none; }
main { max-width: 1180px; margin: 0 auto; padding: 1.25rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.1rem; margin: 0 0 1rem; }
.muted { color: var(--muted); }
.small { font-size: 12.5px; }
.row { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
.spread { display: flex; justify-content: space-between; align-items: flex-start; gap: 1rem; flex-wrap: wrap; margin-bottom: .5rem; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 1rem; }
table { width: 100%; border-collapse: collapse; background: var(--card); }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12.5px; text-transform: uppercase; letter-spacing: .03em; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.kv th { width: 12rem; text-transform: none; letter-spacing: 0; font-size: 13px; }
table.kv td { word-break: break-word; }
.table-wrap { border: 1px solid var(--line); border-radius: 8px; overflow: hidden; background: var(--card); }
.table-wrap table tr:last-child td, .table-wrap table tr:last-child th { border-bottom: 0; }
button, .button { font: inherit; cursor: pointer; border: 1px solid var(--line); background: var(--card); color: var(--fg); padding: .35rem .75rem; border-radius: 6px; display: inline-block; }
button:hover, .button:hover { border-color: #b9c0cc; text-decoration: none; }
button.primary, .button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { color: var(--red); }
input[type=text], input[type=email], input[type=password], input[type=number], input[type=search], input[type=url], select, textarea {
  font: inherit; padding: .35rem .55rem; border: 1px solid #c9ced8; border-radius: 6px; background: #fff; color: var(--fg); }
form.inline { display: inline; margin: 0; }
label { display: block; font-weight: 600; margin: .6rem 0 .2rem; }
label.inline-label { display: inline; font-weight: normal; margin: 0 .2rem; }
tr.on td { background: #f7f9ff; }
.filters { display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; margin: .75rem 0; }
.filters input[type=search] { min-width: 16rem; flex: 1; }
.tabs { display: flex; gap: .25rem; border-bottom: 1px solid var(--line); margin: .5rem 0 0; }
.tabs a { padding: .5rem .85rem; border: 1px solid transparent; border-bottom: 0; border-radius: 6px 6px 0 0; color: var(--muted); }
.tabs a.on { background: var(--card); border-color: var(--line); color: var(--fg); font-weight: 600; margin-bottom: -1px; }
.tabs .count { display: inline-block; min-width: 1.4rem; padding: 0 .35rem; margin-left: .3rem; border-radius: 9px; background: #eceff3; font-size: 12px; text-align: center; }
.issues td.title a { font-weight: 600; color: var(--fg); word-break: break-word; }
.issues td.title .culprit { color: var(--muted); font-size: 12.5px; word-break: break-all; }
.issues tr.fresh { animation: flash 1.2s ease-out; }
@keyframes flash { from { background: var(--amber-bg); } to { background: transparent; } }
.bulk { display: flex; gap: .5rem; align-items: center; padding: .5rem .6rem; border-bottom: 1px solid var(--line); background: #fafbfc; flex-wrap: wrap; }
.pager { display: flex; gap: .5rem; justify-content: flex-end; margin: .75rem 0; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 4px; font-size: 12px; font-weight: 600; background: #eceff3; color: var(--muted); white-space: nowrap; }
.badge.error, .badge.fatal, .badge.unresolved { background: var(--red-bg); color: var(--red); }
.badge.warning, .badge.ignored, .badge.review { background: var(--amber-bg); color: var(--amber); }
.badge.info, .badge.resolved, .badge.ok { background: var(--green-bg); color: var(--green); }
.badge.in-app { background: var(--accent-bg); color: var(--accent); }
.badge.missed, .badge.overrunning, .badge.failed { background: var(--red-bg); color: var(--red); }
.flash { padding: .6rem .9rem; border-radius: 6px; margin: 0 0 1rem; background: var(--accent-bg); border: 1px solid #c6d4f7; }
.flash.error { background: var(--red-bg); border-color: #f3c1bb; color: var(--red); }
.live-note { font-size: 12.5px; color: var(--muted); }
.live-note.on::before { content: "●"; color: var(--green); margin-right: .3rem; }
.tag-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); gap: .75rem 1.5rem; margin-top: .5rem; }
.tag-dist ul { list-style: none; padding: 0; margin: .25rem 0 0; }
.tag-dist li { display: grid; grid-template-columns: 1fr auto; gap: 0 .5rem; margin-bottom: .3rem; overflow-wrap: anywhere; }
.tag-dist meter { grid-column: 1 / -1; width: 100%; height: .4rem; }
.stats { display: flex; gap: 1.5rem; flex-wrap: wrap; margin: .75rem 0; }
.stats div b { display: block; font-size: 1.25rem; }
.stats div span { color: var(--muted); font-size: 12.5px; }
.actions { display: flex; gap: .4rem; flex-wrap: wrap; align-items: center; }
.actions details { position: relative; }
.actions details > summary { list-style: none; }
.actions details > summary::-webkit-details-marker { display: none; }
.actions .menu { position: absolute; z-index: 4; right: 0; background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .6rem; min-width: 16rem; box-shadow: 0 6px 18px rgba(0,0,0,.12); }
.actions .menu form { margin: .3rem 0; display: flex; gap: .4rem; align-items: center; }
.exception { margin: 0 0 1.25rem; }
.exception h3 { font-family: var(--mono); font-size: 14px; word-break: break-word; }
.frames { border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.frame { border-bottom: 1px solid var(--line); }
.frame:last-child { border-bottom: 0; }
.frame > summary, .frame > .head { padding: .35rem .6rem; font-family: var(--mono); font-size: 12.5px; cursor: pointer; word-break: break-all; }
.frame.app > summary { background: #f7f9ff; }
.frame .fn { font-weight: 600; }
.frame ol { list-style: none; margin: 0; padding: .25rem 0; background: #fbfbfc; border-top: 1px solid var(--line); font-family: var(--mono); font-size: 12.5px; overflow-x: auto; }
.frame ol li { white-space: pre; padding: 0 .6rem; }
.frame ol li .ln { display: inline-block; width: 3.5rem; color: var(--muted); text-align: right; margin-right: .75rem; user-select: none; }
.frame ol li.hit { background: #fff1c2; }
.system-frames > summary { padding: .35rem .6rem; color: var(--muted); font-size: 12.5px; cursor: pointer; background: #fafbfc; }
.thread > summary { padding: .35rem .6rem; font-size: 13px; cursor: pointer; border-bottom: 1px solid var(--line); }
.thread > .frames { margin: .25rem 0 .5rem 1rem; }
.chart { width: 100%; height: auto; display: block; }
.chart .bar:hover { opacity: .8; }
.chart .axis { stroke: var(--line); }
.chart text { fill: var(--muted); font-size: 10px; font-family: system-ui, sans-serif; }
.chart .line { fill: none; stroke-width: 2; }
.legend { display: flex; gap: 1rem; flex-wrap: wrap; font-size: 12.5px; margin: .4rem 0 0; }
.legend i { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; margin-right: .3rem; vertical-align: -1px; }
.timeline { display: flex; gap: 2px; flex-wrap: wrap; }
.timeline span, .swatch { width: 10px; height: 22px; border-radius: 2px; background: #ccd2dc; }
.swatch { display: inline-block; height: 14px; vertical-align: -2px; margin-right: .2rem; }
.ok.run { background: #3d9a5b; } .error.run { background: #d14b3d; }
.missed.run { background: #e0a21b; } .timeout.run { background: #8c4ad6; }
.in_progress.run { background: #7b97e6; }
.login { max-width: 360px; margin: 10vh auto; }
.login input { width: 100%; }
.login button { width: 100%; margin-top: 1rem; }
.dsn { display: flex; gap: .5rem; align-items: center; }
.dsn input { flex: 1; font-family: var(--mono); font-size: 12.5px; }
.snippets h3 { margin-top: 1.25rem; }
.empty { padding: 2rem; text-align: center; color: var(--muted); }
.nowrap { white-space: nowrap; }
.break { word-break: break-word; }
.button[aria-disabled=true] { opacity: .45; cursor: default; }
.button[aria-disabled=true]:hover { border-color: var(--line); }
input[type=number] { width: 7rem; }
input[type=text]:not([readonly]), input[type=url] { min-width: 18rem; }
.card > h2:first-child, .card > h1:first-child { margin-top: 0; }
.snippet-head { display: flex; justify-content: space-between; align-items: center; margin-top: 1.25rem; }
.snippet-head h3 { margin: 0; }
`

/**
 * The report's whole stylesheet, inlined into the page (no external assets). Status colours
 * always come with a text label; narrow windows get one column; print shows every collapsed
 * block and drops the scroll boxes.
 */
export const REPORT_STYLES = `
:root {
  color-scheme: light dark;
  --background: #f6f7f9;
  --surface: #ffffff;
  --surface-muted: #f0f2f5;
  --text: #1c2128;
  --text-muted: #57606a;
  --border: #d8dee4;
  --accent: #3b5bdb;
  --pass: #1a7f37;
  --pass-background: #dafbe1;
  --fail: #c21f2b;
  --fail-background: #ffebe9;
  --error: #8a5300;
  --error-background: #fff4d6;
  --neutral: #4b5563;
  --neutral-background: #eaeef2;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --background: #0d1117;
    --surface: #161b22;
    --surface-muted: #1f252d;
    --text: #e6edf3;
    --text-muted: #9198a1;
    --border: #30363d;
    --accent: #7c9cff;
    --pass: #3fb950;
    --pass-background: #12331d;
    --fail: #ff7b72;
    --fail-background: #3d1418;
    --error: #e3b341;
    --error-background: #3b2a06;
    --neutral: #b1bac4;
    --neutral-background: #272e37;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0;
  background: var(--background);
  color: var(--text);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
h1 { font-size: 1.5rem; margin: 0 0 0.5rem; line-height: 1.25; overflow-wrap: anywhere; }
h2 { font-size: 1.125rem; margin: 2rem 0 0.75rem; }
h3 { font-size: 1rem; margin: 0 0 0.5rem; overflow-wrap: anywhere; }
h4 { font-size: 0.75rem; margin: 0 0 0.25rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--text-muted); }
h5 { font-size: 0.9375rem; margin: 0; overflow-wrap: anywhere; }
p { margin: 0; }
code { font-family: var(--mono); font-size: 0.875em; overflow-wrap: anywhere; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.report-header { display: flex; flex-wrap: wrap; gap: 1rem; justify-content: space-between; align-items: flex-start; }
.report-heading { min-width: 0; flex: 1 1 20rem; }
.run-facts { display: flex; flex-wrap: wrap; gap: 0.25rem 1.5rem; margin: 0; color: var(--text-muted); font-size: 0.875rem; }
.run-facts div { display: flex; gap: 0.375rem; min-width: 0; }
.run-facts dt::after { content: ":"; }
.run-facts dd { margin: 0; color: var(--text); min-width: 0; }
.run-status { padding: 0.25rem 0.75rem; border-radius: 999px; font-weight: 600; font-size: 0.8125rem; border: 1px solid currentColor; color: var(--neutral); background: var(--neutral-background); }
.run-status-failed, .run-status-quota-exhausted { color: var(--fail); background: var(--fail-background); }
.run-status-budget-exhausted { color: var(--error); background: var(--error-background); }
.run-status-interrupted { color: var(--error); background: var(--error-background); }
.fake-judge-notice { margin-top: 1.25rem; padding: 0.75rem 1rem; border-radius: 8px; border: 2px solid var(--error); color: var(--error); background: var(--error-background); }
.verdict { margin-top: 1.25rem; padding: 0.75rem 1rem; border-radius: 8px; border: 1px solid var(--border); border-left-width: 6px; background: var(--surface); }
.verdict-pass { border-left-color: var(--pass); }
.verdict-pass strong { color: var(--pass); }
.verdict-fail { border-left-color: var(--fail); }
.verdict-fail strong { color: var(--fail); }
.verdict-warn { border-left-color: var(--error); }
.verdict-warn strong { color: var(--error); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(10.5rem, 1fr)); gap: 0.75rem; }
.card { background: var(--surface); border: 1px solid var(--border); border-radius: 8px; padding: 0.875rem 1rem; min-width: 0; }
.card-label { font-size: 0.75rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--text-muted); }
.card-value { font-size: 1.5rem; font-weight: 600; font-variant-numeric: tabular-nums; margin: 0.125rem 0; }
.card-detail { font-size: 0.8125rem; color: var(--text-muted); }
.interval { display: block; font-size: 0.75rem; font-weight: 400; color: var(--text-muted); }
.metric-summaries { display: grid; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); gap: 0.75rem; }
.metric-figures { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; margin: 0; }
.metric-figures dt { font-size: 0.75rem; color: var(--text-muted); }
.metric-figures dd { margin: 0; font-size: 1.125rem; font-weight: 600; font-variant-numeric: tabular-nums; }
.metric-counts { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 0.75rem; padding: 0; margin: 0.5rem 0; font-size: 0.8125rem; }
.count-pass { color: var(--pass); }
.count-fail { color: var(--fail); }
.count-error { color: var(--error); }
.count-score-only { color: var(--neutral); }
.histogram { display: block; width: 100%; height: auto; max-height: 9rem; }
.histogram-bar { fill: var(--accent); opacity: 0.8; }
.histogram-axis { stroke: var(--border); }
.histogram-threshold { stroke: var(--text-muted); stroke-dasharray: 3 2; }
.histogram-count, .histogram-tick { font: 9px system-ui, sans-serif; fill: var(--text-muted); }
.section-note { color: var(--text-muted); font-size: 0.875rem; margin: -0.5rem 0 0.75rem; }
.empty { color: var(--text-muted); }
.case { background: var(--surface); border: 1px solid var(--border); border-left: 5px solid var(--neutral); border-radius: 8px; margin-bottom: 0.625rem; }
.case-pass { border-left-color: var(--pass); }
.case-fail { border-left-color: var(--fail); }
.case-error { border-left-color: var(--error); }
.case > summary { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.25rem 0.75rem; padding: 0.625rem 1rem; cursor: pointer; }
.case > summary::marker, .trial > summary::marker { color: var(--text-muted); }
.case-name { font-weight: 600; overflow-wrap: anywhere; min-width: 0; }
.case-meta { color: var(--text-muted); font-size: 0.8125rem; }
.case-body { padding: 0 1rem 1rem; border-top: 1px solid var(--border); }
.badge { display: inline-block; padding: 0.0625rem 0.5rem; border-radius: 4px; font-size: 0.75rem; font-weight: 700; letter-spacing: 0.03em; white-space: nowrap; border: 1px solid currentColor; }
.badge-pass { color: var(--pass); background: var(--pass-background); }
.badge-fail { color: var(--fail); background: var(--fail-background); }
.badge-error { color: var(--error); background: var(--error-background); }
.badge-score-only { color: var(--neutral); background: var(--neutral-background); }
.fields { display: grid; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); gap: 0.75rem; margin: 0.875rem 0; }
.field { min-width: 0; }
.text { font-family: var(--mono); font-size: 0.8125rem; line-height: 1.45; white-space: pre-wrap; overflow-wrap: anywhere; background: var(--surface-muted); border: 1px solid var(--border); border-radius: 6px; padding: 0.5rem 0.625rem; margin: 0; max-height: 20rem; overflow: auto; }
.text-missing { color: var(--text-muted); font-style: italic; }
.image-marker { display: inline-flex; align-items: center; gap: 0.25rem; font-family: system-ui, sans-serif; font-size: 0.75rem; font-weight: 600; color: var(--accent); background: var(--surface); border: 1px dashed var(--accent); border-radius: 4px; padding: 0 0.375rem; margin: 0 0.125rem; white-space: normal; overflow-wrap: anywhere; vertical-align: baseline; }
.image-icon { width: 0.875rem; height: 0.875rem; flex: none; fill: none; stroke: currentColor; stroke-width: 1.3; }
.metrics { display: grid; gap: 0.625rem; }
.metric { border: 1px solid var(--border); border-radius: 6px; padding: 0.625rem 0.75rem; min-width: 0; break-inside: avoid; }
.metric-fail { background: color-mix(in srgb, var(--fail-background) 35%, var(--surface)); }
.metric-error { background: color-mix(in srgb, var(--error-background) 35%, var(--surface)); }
.metric-header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.25rem 0.625rem; }
.metric-score { margin-left: auto; color: var(--text-muted); font-size: 0.875rem; font-variant-numeric: tabular-nums; }
.metric-score strong { color: var(--text); }
.metric-reason, .error-message { margin-top: 0.375rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.error-message { color: var(--error); }
.metric-facts { display: flex; flex-wrap: wrap; gap: 0.125rem 1.25rem; margin: 0.5rem 0 0; font-size: 0.8125rem; color: var(--text-muted); }
.metric-facts div { display: flex; gap: 0.375rem; min-width: 0; }
.metric-facts dt::after { content: ":"; }
.metric-facts dd { margin: 0; color: var(--text); overflow-wrap: anywhere; }
.steps { margin-top: 0.5rem; }
.steps > summary { cursor: pointer; font-size: 0.8125rem; color: var(--accent); }
.steps .text { margin-top: 0.375rem; }
.trial { border-top: 1px dashed var(--border); padding: 0.5rem 0; }
.trial > summary { cursor: pointer; font-weight: 600; padding-bottom: 0.375rem; }
footer { margin-top: 2rem; color: var(--text-muted); font-size: 0.8125rem; }
@media (max-width: 40rem) {
  main { padding: 1rem 0.625rem 2rem; }
  .metric-score { margin-left: 0; flex-basis: 100%; }
  .card-value { font-size: 1.25rem; }
}
@media print {
  :root { color-scheme: light; }
  body { background: #fff; font-size: 11pt; }
  main { max-width: none; padding: 0; }
  * { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
  details::details-content { content-visibility: visible; display: contents; }
  summary { list-style: none; }
  summary::marker, summary::-webkit-details-marker { display: none; content: ""; }
  .text { max-height: none; overflow: visible; }
  .card, .metric-summary, .metric, .field { break-inside: avoid; }
  .case > summary { break-after: avoid; }
}
`;

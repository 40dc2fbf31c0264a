import { REPORT_STYLES } from "./report-styles.ts";
import { html, SafeHtml } from "./safe-html.ts";

/**
 * What the page may load: nothing but its own inline styles and `data:` images. It has no
 * script at all (collapsing uses `<details>`), so even markup that escaped escaping could not
 * run, and a report opened from a CI artifact makes no network request.
 */
export const HTML_REPORT_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/**
 * A whole self-contained report page around `body` (a `<main>`): the Content-Security-Policy
 * above, no referrer, the report's stylesheet (and `extraStyles`), light and dark colours.
 */
export function renderReportPage(options: {
  title: string;
  body: SafeHtml;
  /** More CSS after the report's own, e.g. a report's tables. */
  extraStyles?: string;
}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${HTML_REPORT_CONTENT_SECURITY_POLICY}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="verdict">
<title>${options.title}</title>
<style>${new SafeHtml(REPORT_STYLES + (options.extraStyles ?? ""))}</style>
</head>
<body>
${options.body}
</body>
</html>
`.value;
}

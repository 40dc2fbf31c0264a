import { html, type SafeHtml } from "./safe-html.ts";

/** An ISO time as `<time>`, shown in UTC (`2025-01-01 10:00:00 UTC`); unparsable text as is. */
export function renderTime(options: { iso: string }): SafeHtml {
  const date = new Date(options.iso);
  if (Number.isNaN(date.getTime())) return html`${options.iso}`;
  // UTC, so the same report reads the same wherever it is opened.
  const text = `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
  return html`<time datetime="${date.toISOString()}">${text}</time>`;
}

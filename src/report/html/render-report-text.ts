import { showControlCharacters } from "../format.ts";
import { html, type SafeHtml } from "./safe-html.ts";

/** Options of {@link renderReportText}. */
export interface RenderReportTextOptions {
  text: string;
}

/**
 * `[image N: source]`, as written by contentForReport. A source may hold one level of square
 * brackets, as an IPv6 URL does (`http://[::1]/a.png`).
 */
const IMAGE_MARKER = /\[image (\d+): ((?:[^[\]\n]|\[[^[\]\n]*\])*)\]/g;
const IMAGE_ICON = html`<svg class="image-icon" viewBox="0 0 16 16" aria-hidden="true"><rect x="1.5" y="2.5" width="13" height="11" rx="1.5"/><circle cx="5.5" cy="6.5" r="1.5"/><path d="M2 12l4-4 3 3 2-2 3 3"/></svg>`;

/**
 * Renders test-case or judge text as escaped HTML. Image markers become visible badges, so a
 * reader sees where an image was; control characters become visible stand-ins (`␀`), which a
 * browser would otherwise drop or garble silently.
 */
export function renderReportText(options: RenderReportTextOptions): SafeHtml {
  const text = showControlCharacters(options.text);
  const parts: SafeHtml[] = [];
  let position = 0;
  for (const match of text.matchAll(IMAGE_MARKER)) {
    const source = match[2] ?? "";
    parts.push(
      html`${text.slice(position, match.index)}<span class="image-marker" title="${source}">${IMAGE_ICON}image ${match[1] ?? ""}: ${source}</span>`,
    );
    position = match.index + match[0].length;
  }
  parts.push(html`${text.slice(position)}`);
  return html`${parts}`;
}

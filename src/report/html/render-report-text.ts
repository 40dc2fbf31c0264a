import type { ResultImage } from "../../results/evaluation-result.ts";
import { showControlCharacters } from "../format.ts";
import { html, type SafeHtml } from "./safe-html.ts";

/** Options of {@link renderReportText}. */
export interface RenderReportTextOptions {
  text: string;
  /**
   * The images of the field `text` is, whose markers (`[image N: …]`, at `start`–`end`) become
   * badges. Text without images is shown as it is, even where it reads like a marker.
   * @default []
   */
  images?: readonly ResultImage[];
}

const IMAGE_ICON = html`<svg class="image-icon" viewBox="0 0 16 16" aria-hidden="true"><rect x="1.5" y="2.5" width="13" height="11" rx="1.5"/><circle cx="5.5" cy="6.5" r="1.5"/><path d="M2 12l4-4 3 3 2-2 3 3"/></svg>`;

/**
 * Renders test-case or judge text as escaped HTML. The markers of `images` become visible
 * badges, so a reader sees where an image was; control and bidi characters are shown as
 * `<U+XXXX>` (as `html` shows them in every value), which a browser would otherwise drop,
 * garble or obey silently.
 */
export function renderReportText(options: RenderReportTextOptions): SafeHtml {
  const { text } = options;
  const images = [...(options.images ?? [])].sort((first, second) => first.start - second.start);
  const parts: SafeHtml[] = [];
  let position = 0;
  for (const image of images) {
    // Offsets that do not fit the text (a result edited by hand) leave it as plain text.
    if (image.start < position || image.end > text.length || image.end <= image.start) continue;
    const label = showControlCharacters(image.label);
    parts.push(
      html`${showControlCharacters(text.slice(position, image.start))}<span class="image-marker" title="${label}">${IMAGE_ICON}image ${image.number}: ${label}</span>`,
    );
    position = image.end;
  }
  parts.push(html`${showControlCharacters(text.slice(position))}`);
  return html`${parts}`;
}

import { showControlCharacters } from "../format.ts";

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Escapes text for HTML element content and quoted attribute values alike: `&`, `<`, `>`, `"`
 * and `'`, after showing control and bidi characters as `<U+XXXX>` (`showControlCharacters`).
 * Every value a report interpolates goes through it, since test-case fields and judge answers
 * routinely contain markup, and names may hold a right-to-left override.
 * @example
 * `<td title="${escapeHtml({ text: reason })}">${escapeHtml({ text: reason })}</td>`
 */
export function escapeHtml(options: { text: string }): string {
  return showControlCharacters(options.text).replace(
    /[&<>"']/g,
    (character) => HTML_ESCAPES[character] ?? character,
  );
}

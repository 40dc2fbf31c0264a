import { showControlCharacters } from "../format.ts";

// XML 1.0 allows tab, newline and carriage return below U+0020, and neither U+FFFE nor U+FFFF.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const ILLEGAL_XML_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** ` name="value"` for each attribute, escaped with {@link escapeXml}. */
export function renderXmlAttributes(attributes: Record<string, string | number>): string {
  return Object.entries(attributes)
    .map(([name, value]) => ` ${name}="${escapeXml(String(value), { attribute: true })}"`)
    .join("");
}

/**
 * Escapes text for XML 1.0 content or a double-quoted attribute. Control and bidi characters
 * are shown as `<U+XXXX>` (`showControlCharacters`), as every report shows them; what XML 1.0
 * still forbids (U+FFFE, U+FFFF) is removed and lone surrogates become U+FFFD, because one
 * such character makes the whole file unreadable to a CI parser.
 */
export function escapeXml(text: string, options: { attribute?: boolean } = {}): string {
  const escaped = showControlCharacters(text)
    .replace(ILLEGAL_XML_CHARACTERS, "")
    .replace(LONE_SURROGATES, "\ufffd")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\r/g, "&#13;");
  // A parser turns raw newlines and tabs in attributes into spaces; references keep them.
  if (options.attribute !== true) return escaped;
  return escaped.replace(/\n/g, "&#10;").replace(/\t/g, "&#9;");
}

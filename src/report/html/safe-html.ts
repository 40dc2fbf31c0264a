import { escapeHtml } from "./escape-html.ts";

/** HTML that is already escaped: {@link html} inserts it as is. */
export class SafeHtml {
  readonly value: string;

  constructor(value: string) {
    this.value = value;
  }

  toString(): string {
    return this.value;
  }
}

/** What {@link html} accepts between `${}`: nothing, `false` and `null` render as nothing. */
export type HtmlValue =
  | string
  | number
  | SafeHtml
  | null
  | undefined
  | false
  | readonly HtmlValue[];

/**
 * Template tag that escapes every interpolated value with {@link escapeHtml} unless it is
 * already {@link SafeHtml}; arrays are joined. Building the report only through this tag means
 * no value can reach the page unescaped by forgetting a call.
 * @example
 * html`<p title="${reason}">${reason}</p>` // reason "<b>" → "&lt;b&gt;" in both places
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let result = strings[0] ?? "";
  values.forEach((value, position) => {
    result += renderValue(value) + (strings[position + 1] ?? "");
  });
  return new SafeHtml(result);
}

function renderValue(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map((item: HtmlValue) => renderValue(item)).join("");
  return escapeHtml({ text: String(value) });
}

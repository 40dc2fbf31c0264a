/**
 * Text into GitHub-flavoured Markdown (job summaries, pull-request comments), so that what a
 * test case or a judge wrote is shown, never rendered: no link, image, HTML, @mention or
 * issue reference can come from it, and no table cell can break its row.
 */
import { showControlCharacters, showName, toOneLine } from "../format.ts";
import { truncateText } from "../truncate-text.ts";

// CommonMark lets a backslash escape any ASCII punctuation character, and then shows it as
// itself. Escaped: what Markdown acts on (emphasis, code, links, images, HTML, headings, list
// markers, quotes, entities), GitHub's additions (`|` of tables, `~` strikethrough, `$` maths,
// `@` mentions, `#` references) and `:` and `.`, without which no autolink (`https://`,
// `www.`) forms. Commas, quotes and the like are left as they are, to keep the text readable.
const PUNCTUATION = /[\\`*_{}[\]()#+\-.!|<>~&@:$]/g;

/**
 * Text on one line, shown as written: control and bidi characters as `<U+XXXX>`, line breaks
 * as spaces, the punctuation Markdown or GitHub act on backslash-escaped, at most `maxLength`
 * characters (secrets masked first).
 * @example
 * inlineText("see [here](https://x.example)", 200); // "see \[here\]\(https\:\/\/x\.example\)"
 */
export function inlineText(text: string, maxLength: number): string {
  return truncateText(showName(toOneLine(text)), maxLength).replace(PUNCTUATION, "\\$&");
}

/**
 * A fenced code block holding `text` as it is (secrets masked, control characters shown, at
 * most `maxLength` characters): its fence is longer than any run of backticks in the text, so
 * that the text cannot close it.
 */
export function codeBlock(text: string, maxLength: number): string {
  const shown = truncateText(showControlCharacters(text), maxLength);
  const longestRun = Math.max(0, ...(shown.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  return `${fence}text\n${shown}\n${fence}`;
}

/** A column of {@link markdownTable}. */
export interface MarkdownColumn {
  header: string;
  align?: "left" | "right";
}

/**
 * A GitHub table. Cells are given as Markdown already (escape text with {@link inlineText});
 * a line break in one becomes a space.
 */
export function markdownTable(
  columns: readonly MarkdownColumn[],
  rows: readonly string[][],
): string {
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell) => cell.replace(/\s*\n\s*/g, " ")).join(" | ")} |`;
  return [
    line(columns.map((column) => column.header)),
    line(columns.map((column) => (column.align === "right" ? "---:" : "---"))),
    ...rows.map(line),
  ].join("\n");
}

/**
 * Adds Markdown sections while they fit in a budget of characters (a GitHub comment holds
 * 65,536; a job summary 1 MiB): the sections after the first that does not fit are dropped
 * and counted, so that the caller can say what was left out.
 */
export class MarkdownBudget {
  private readonly parts: string[] = [];
  private readonly maxLength: number;
  private used = 0;
  private dropped = 0;

  constructor(maxLength: number) {
    this.maxLength = maxLength;
  }

  /** Adds `section` if it fits (and nothing was dropped before); returns whether it did. */
  add(section: string): boolean {
    if (this.dropped > 0 || this.used + section.length + 2 > this.maxLength) {
      this.dropped += 1;
      return false;
    }
    this.parts.push(section);
    this.used += section.length + 2;
    return true;
  }

  /** How many sections did not fit. */
  get droppedSections(): number {
    return this.dropped;
  }

  /** The sections that fit, a blank line apart. */
  toString(): string {
    return this.parts.join("\n\n");
  }
}

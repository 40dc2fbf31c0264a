import { redactSecretText } from "../../secrets/redact-secrets.ts";

/** A table cell: its text, and the ANSI colour it is painted in (`null`: none). */
export type Cell = string | { text: string; colour: string | null };

/** A table column. */
export interface Column {
  header: string;
  align: "left" | "right";
  /** The column may narrow to fit the table in `width`: longer cells wrap onto several lines. */
  wrap?: boolean;
  /** Cells wrap at this width even when the table has room. */
  maxWidth?: number;
}

const ANSI_RESET = "\u001b[0m";
/** A wrapping column never narrows below this, so that words stay readable. */
const MIN_WRAP_WIDTH = 10;

/**
 * A plain-text table with `+---+` borders, cells padded to the widest in their column. When
 * the table would be wider than `width` (the terminal's columns), the wrapping columns narrow,
 * widest first, and their cells wrap onto several lines: nothing is cut. Secrets in cells are
 * masked before they wrap. Colours only when `color` is true.
 */
export function renderTable(options: {
  columns: Column[];
  rows: Cell[][];
  color: boolean;
  indent: string;
  /** The widest a line may be, indent included. @default no limit */
  width?: number;
}): string[] {
  const { columns, color, indent } = options;
  const cells = options.rows.map((row) =>
    columns.map((_, index) => {
      const cell = row[index] ?? "";
      // Masked before wrapping: a key wrapped onto two lines matches neither its value nor
      // its pattern (`sk-…`) line by line.
      return typeof cell === "string"
        ? { text: redactSecretText(cell), colour: null }
        : { text: redactSecretText(cell.text), colour: cell.colour };
    }),
  );
  const widths = fitWidths({
    columns,
    natural: columns.map((column, index) =>
      Math.min(
        column.maxWidth ?? Number.POSITIVE_INFINITY,
        Math.max(
          textWidth(column.header),
          ...cells.map((row) => textWidth(row[index]?.text ?? "")),
        ),
      ),
    ),
    available: (options.width ?? Number.POSITIVE_INFINITY) - textWidth(indent),
  });
  const rows = cells.map((row) =>
    row.map(({ text, colour }, index) => {
      const width = widths[index] ?? 0;
      const lines = columns[index]?.wrap === true ? wrap(text, width) : [text];
      return { lines, colour };
    }),
  );
  const border = `${indent}+${widths.map((width) => "-".repeat(width + 2)).join("+")}+`;
  const renderLine = (cells: { text: string; colour: string | null }[]) =>
    `${indent}|${cells
      .map(({ text, colour }, index) => {
        const padding = " ".repeat(Math.max(0, (widths[index] ?? 0) - textWidth(text)));
        const padded = columns[index]?.align === "right" ? padding + text : text + padding;
        return ` ${paint(padded, colour, color)} `;
      })
      .join("|")}|`;

  const lines = [
    border,
    renderLine(columns.map((column) => ({ text: column.header, colour: null }))),
    border,
  ];
  for (const row of rows) {
    const height = Math.max(1, ...row.map((cell) => cell.lines.length));
    for (let lineIndex = 0; lineIndex < height; lineIndex += 1) {
      lines.push(
        renderLine(row.map((cell) => ({ text: cell.lines[lineIndex] ?? "", colour: cell.colour }))),
      );
    }
  }
  if (rows.length > 0) lines.push(border);
  return lines;
}

/** `text` in `colour` when `color` is on and there is a colour, else as is. */
export function paint(text: string, colour: string | null, color: boolean): string {
  return color && colour !== null ? `${colour}${text}${ANSI_RESET}` : text;
}

/**
 * The columns' widths: their natural widths, narrowed (widest wrapping column first, down to
 * {@link MIN_WRAP_WIDTH} or its header) until the table fits in `available`.
 */
function fitWidths(options: {
  columns: readonly Column[];
  natural: readonly number[];
  available: number;
}): number[] {
  const { columns } = options;
  const widths = [...options.natural];
  // "| " before each cell, " " after it, and the closing "|".
  const tableWidth = () => widths.reduce((sum, width) => sum + width + 3, 1);
  const floor = (index: number) =>
    Math.max(MIN_WRAP_WIDTH, textWidth(columns[index]?.header ?? ""));
  while (tableWidth() > options.available) {
    let widest = -1;
    for (const [index, column] of columns.entries()) {
      const width = widths[index] ?? 0;
      if (column.wrap !== true || width <= floor(index)) continue;
      if (widest === -1 || width > (widths[widest] ?? 0)) widest = index;
    }
    if (widest === -1) break;
    const excess = tableWidth() - options.available;
    const current = widths[widest] ?? 0;
    const others = widths.filter(
      (width, index) => index !== widest && columns[index]?.wrap === true && width < current,
    );
    // Narrow to the next widest wrapping column at most, so that the space is shared.
    const step = Math.min(excess, current - Math.max(floor(widest), ...others));
    widths[widest] = current - Math.max(1, step);
  }
  return widths;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    let rest = word;
    while (textWidth(rest) > width) {
      if (line !== "") lines.push(line);
      line = "";
      const characters = Array.from(rest);
      lines.push(characters.slice(0, width).join(""));
      rest = characters.slice(width).join("");
    }
    if (line === "") line = rest;
    else if (textWidth(line) + 1 + textWidth(rest) <= width) line = `${line} ${rest}`;
    else {
      lines.push(line);
      line = rest;
    }
  }
  if (line !== "" || lines.length === 0) lines.push(line);
  return lines;
}

/** Width in code points: right for Latin, emoji and CJK count as one column too few. */
function textWidth(text: string): number {
  return Array.from(text).length;
}

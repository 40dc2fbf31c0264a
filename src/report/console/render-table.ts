/** A table cell: its text, and the ANSI colour it is painted in (`null`: none). */
export type Cell = string | { text: string; colour: string | null };

/** A table column. */
export interface Column {
  header: string;
  align: "left" | "right";
  /** Longer cells wrap onto several lines. */
  wrapWidth?: number;
}

const ANSI_RESET = "\u001b[0m";

/**
 * A plain-text table with `+---+` borders, cells padded to the widest in their column and
 * wrapped at the column's `wrapWidth`; colours only when `color` is true.
 */
export function renderTable(options: {
  columns: Column[];
  rows: Cell[][];
  color: boolean;
  indent: string;
}): string[] {
  const { columns, color, indent } = options;
  const rows = options.rows.map((row) =>
    columns.map((column, index) => {
      const cell = row[index] ?? "";
      const { text, colour } = typeof cell === "string" ? { text: cell, colour: null } : cell;
      const lines = column.wrapWidth === undefined ? [text] : wrap(text, column.wrapWidth);
      return { lines, colour };
    }),
  );
  const widths = columns.map((column, index) =>
    Math.max(
      textWidth(column.header),
      ...rows.flatMap((row) => (row[index]?.lines ?? []).map((line) => textWidth(line))),
    ),
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

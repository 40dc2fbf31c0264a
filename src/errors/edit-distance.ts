/**
 * Edits (insert, delete, substitute, swap two neighbours) that turn `from` into `to`: how far a
 * mistyped name is from a known one, for "did you mean" hints.
 * @example
 * editDistance("treshold", "threshold"); // 1
 */
export function editDistance(from: string, to: string): number {
  const rows = Array.from({ length: from.length + 1 }, (_, row) =>
    Array.from({ length: to.length + 1 }, (_, column) =>
      row === 0 ? column : column === 0 ? row : 0,
    ),
  );
  const at = (row: number, column: number) => rows[row]?.[column] ?? Number.POSITIVE_INFINITY;
  for (let row = 1; row <= from.length; row++) {
    for (let column = 1; column <= to.length; column++) {
      const cost = from[row - 1] === to[column - 1] ? 0 : 1;
      let distance = Math.min(
        at(row - 1, column) + 1,
        at(row, column - 1) + 1,
        at(row - 1, column - 1) + cost,
      );
      if (
        row > 1 &&
        column > 1 &&
        from[row - 1] === to[column - 2] &&
        from[row - 2] === to[column - 1]
      ) {
        distance = Math.min(distance, at(row - 2, column - 2) + 1);
      }
      (rows[row] as number[])[column] = distance;
    }
  }
  return at(from.length, to.length);
}

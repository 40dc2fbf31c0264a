import { describe, expect, it } from "vitest";
import { joinListCell, splitListCell } from "./list-cell.ts";

describe("list cells", () => {
  it("splits on the delimiter, with \\ escaping it and itself only", () => {
    expect(splitListCell({ cell: "a|b||c", delimiter: "|" })).toEqual(["a", "b", "", "c"]);
    expect(splitListCell({ cell: "a\\|b|c\\\\|d", delimiter: "|" })).toEqual(["a|b", "c\\", "d"]);
    expect(splitListCell({ cell: "C:\\docs\\new|x\\", delimiter: "|" })).toEqual([
      "C:\\docs\\new",
      "x\\",
    ]);
  });

  it("joins so that splitting gives the same items back", () => {
    const samples = [
      ["a"],
      ["a", "b"],
      ["", ""],
      ["|"],
      ["\\"],
      ["\\|", "|\\", "\\\\|"],
      ["a\\", "b"],
      ["x;y", "C:\\path\\to", "é|🎉", "\\\\server\\share"],
    ];
    for (const delimiter of ["|", ";", "¦"]) {
      for (const items of samples) {
        const cell = joinListCell({ items, delimiter });
        expect(splitListCell({ cell, delimiter })).toEqual(items);
      }
    }
    expect(joinListCell({ items: ["C:\\docs", "a|b"], delimiter: "|" })).toBe("C:\\docs|a\\|b");
  });
});

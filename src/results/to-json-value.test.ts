import { describe, expect, it } from "vitest";
import { toJsonValue, WHOLE_VALUE } from "./to-json-value.ts";

/** `[1, <hole>, 3]`. */
function withHole(): unknown[] {
  const holey: unknown[] = new Array(3);
  holey[0] = 1;
  holey[2] = 3;
  return holey;
}

describe("toJsonValue of arrays", () => {
  it("writes every place of an array with holes, as null", () => {
    const converted = toJsonValue(withHole()) as unknown[];
    expect(converted).toEqual([1, null, 3]);
    expect(Object.keys(converted)).toEqual(["0", "1", "2"]);
  });

  it("notes what it leaves out of a long array in the place after the last item kept", () => {
    const converted = toJsonValue(Array.from({ length: 300 }, (_, index) => index)) as unknown[];
    expect(converted).toHaveLength(201);
    expect(converted[199]).toBe(199);
    expect(converted[200]).toBe("[more items left out]");
  });

  it("converts an array longer than it allocates up front item by item", () => {
    const long = Array.from({ length: 20_000 }, (_, index) => index % 7);
    expect(toJsonValue(long, WHOLE_VALUE)).toEqual(long);
  });
});

import { describe, expect, it } from "vitest";
import { isPlainJson, toJsonValue, WHOLE_VALUE } from "./to-json-value.ts";

const plainValues: unknown[] = [
  null,
  "text",
  0,
  -0,
  1.5,
  true,
  [],
  {},
  ["a", 1, false, null, { nested: ["deep", { deeper: [1, 2, 3] }] }],
  {
    verdicts: [
      { verdict: "yes", reason: "It says so." },
      { verdict: "no", reason: null },
    ],
  },
  Object.assign(Object.create(null), { bare: "object" }),
  "x".repeat(10_000),
  Array.from({ length: 200 }, (_, index) => index),
];

class Verdict {
  verdict = "yes";
}

const otherValues: unknown[] = [
  undefined,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  10n,
  Symbol("tag"),
  () => "function",
  new Date(0),
  new Map([["a", 1]]),
  new Set([1]),
  new Uint8Array(2),
  new Verdict(),
  { toJSON: () => "custom" },
  { missing: undefined },
  [undefined],
  withHole(),
  "x".repeat(10_001),
  Array.from({ length: 201 }, (_, index) => index),
  Array.from({ length: 30 }, () => "y".repeat(5_000)),
  [[[[[[[[["too deep"]]]]]]]]],
];

/** `[1, <hole>, 3]`. */
function withHole(): unknown[] {
  const holey: unknown[] = new Array(3);
  holey[0] = 1;
  holey[2] = 3;
  return holey;
}

describe("isPlainJson", () => {
  it.each(plainValues)("vouches for %j, which toJsonValue gives back as it is", (value) => {
    expect(isPlainJson(value)).toBe(true);
    expect(JSON.stringify(toJsonValue(value))).toBe(JSON.stringify(value));
  });

  it.each(otherValues)("does not vouch for %s", (value) => {
    expect(isPlainJson(value)).toBe(false);
  });

  it("never vouches for a value toJsonValue changes", () => {
    for (const value of [...plainValues, ...otherValues]) {
      let same: boolean;
      try {
        same = JSON.stringify(toJsonValue(value), null, 2) === JSON.stringify(value, null, 2);
      } catch {
        same = false;
      }
      if (!same) expect(isPlainJson(value), String(value)).toBe(false);
    }
  });

  it("does not vouch for what it cannot read", () => {
    const broken = {
      get text(): string {
        throw new Error("getter failed");
      },
    };
    expect(isPlainJson(broken)).toBe(false);
  });

  it("stops at a cycle rather than following it", () => {
    const loop: Record<string, unknown> = { name: "loop" };
    loop.self = loop;
    expect(isPlainJson(loop)).toBe(false);
  });
});

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

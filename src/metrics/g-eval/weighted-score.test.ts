import { describe, expect, it } from "vitest";
import type { JudgeTokenLogprob } from "../../judge/judge-model.ts";
import { scoreLiteral, weightedScore } from "./weighted-score.ts";

const L = Math.log;
type Row = [token: string, logprob: number, top: Array<[string, number]>];
const tokens = (rows: Row[]): JudgeTokenLogprob[] =>
  rows.map(([token, logprob, top]) => ({
    token,
    logprob,
    topLogprobs: top.map(([candidate, candidateLogprob]) => ({
      token: candidate,
      logprob: candidateLogprob,
    })),
  }));

// Expected values computed by deepeval's calculate_weighted_summed_score (g_eval/utils.py),
// run in Python on the same vectors; `null` is where deepeval falls back to the integer score.
const TABLE: Array<{ name: string; literal: string; rows: Row[]; deepeval: number | null }> = [
  {
    name: "one place, three candidates",
    literal: "7",
    rows: [
      ["{", 0, []],
      [
        "7",
        L(0.6),
        [
          ["7", L(0.6)],
          ["8", L(0.3)],
          ["6", L(0.1)],
        ],
      ],
    ],
    deepeval: 7.2,
  },
  {
    name: "a tie",
    literal: "5",
    rows: [
      [
        "5",
        L(0.5),
        [
          ["5", L(0.5)],
          ["6", L(0.5)],
        ],
      ],
    ],
    deepeval: 5.5,
  },
  {
    name: "a candidate under 1% is left out",
    literal: "9",
    rows: [
      [
        "9",
        L(0.9),
        [
          ["9", L(0.9)],
          ["10", L(0.095)],
          ["2", L(0.005)],
        ],
      ],
    ],
    deepeval: 9.095477386934673,
  },
  {
    name: "exactly 1% is kept",
    literal: "3",
    rows: [
      [
        "3",
        L(0.5),
        [
          ["3", L(0.5)],
          ["4", Math.log(0.01)],
        ],
      ],
    ],
    deepeval: 3.019607843137255,
  },
  {
    name: "non-digit candidates are left out",
    literal: "8",
    rows: [
      [
        "8",
        L(0.7),
        [
          ["8", L(0.7)],
          [" 8", L(0.2)],
          ["eight", L(0.05)],
          ["9", L(0.05)],
        ],
      ],
    ],
    deepeval: 8.066666666666666,
  },
  {
    name: "the score token is absent from its own candidates",
    literal: "3",
    rows: [
      [
        "3",
        L(0.2),
        [
          ["4", L(0.5)],
          ["5", L(0.3)],
        ],
      ],
    ],
    deepeval: 4.375,
  },
  {
    name: "the last place that is the score counts, not an earlier one",
    literal: "2",
    rows: [
      [
        "2",
        L(0.9),
        [
          ["2", L(0.9)],
          ["1", L(0.1)],
        ],
      ],
      ["x", 0, []],
      [
        "2",
        L(0.4),
        [
          ["2", L(0.4)],
          ["3", L(0.6)],
        ],
      ],
    ],
    deepeval: 2.5999999999999996,
  },
  {
    name: "candidates naming the same number add up",
    literal: "1",
    rows: [
      [
        "1",
        L(0.3),
        [
          ["1", L(0.3)],
          ["01", L(0.3)],
          ["2", L(0.4)],
        ],
      ],
    ],
    deepeval: 1.4,
  },
  {
    name: "the literal is no token",
    literal: "6",
    rows: [["5", L(0.9), [["5", L(0.9)]]]],
    deepeval: null,
  },
  {
    name: "every candidate is left out",
    literal: "4",
    rows: [
      [
        "4",
        L(0.004),
        [
          ["4", L(0.004)],
          ["x", L(0.9)],
        ],
      ],
    ],
    deepeval: null,
  },
  {
    name: "a score written 7.0 is no token",
    literal: "7.0",
    rows: [
      [
        "7",
        L(0.5),
        [
          ["7", L(0.5)],
          ["8", L(0.5)],
        ],
      ],
    ],
    deepeval: null,
  },
];

describe("weightedScore: deepeval's formula", () => {
  it.each(TABLE)("$name", ({ literal, rows, deepeval }) => {
    const score = weightedScore({ literal, tokens: tokens(rows) });
    if (deepeval === null) expect(score).toBeNull();
    else expect(score).toBeCloseTo(deepeval, 12);
  });

  it("is null without tokens", () => {
    expect(weightedScore({ literal: "7", tokens: [] })).toBeNull();
  });
});

describe("scoreLiteral", () => {
  it("reads the score as the answer wrote it, the last one when there are several", () => {
    expect(scoreLiteral('{"reason": "ok", "score": 7}', 7)).toBe("7");
    expect(scoreLiteral('{"reason": "ok", "score": 7.0}', 7)).toBe("7.0");
    expect(scoreLiteral('{"score": 2} then {"reason": "x", "score" : 9}', 9)).toBe("9");
  });

  it("falls back to the number when the text has none (an object answer)", () => {
    expect(scoreLiteral("", 4)).toBe("4");
  });
});

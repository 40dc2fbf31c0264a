// Seeded text of the kind that breaks exports and displays, for the fault bench: line breaks of
// every kind, formula signs and every Unicode lookalike of them, quotes and separators, bidi
// and control characters, right-to-left and joined-emoji text.
import type { TestResult } from "../src/results/evaluation-result.ts";
import { seededRandom } from "../test/fixtures/bad-inputs.ts";
import { metricData, testResult } from "../test/fixtures/results.ts";

/** Every character that Unicode maps to = + - @, and every dash and minus: found by scanning. */
export const LOOKALIKES: string[] = [];
for (let code = 0x20; code <= 0x10ffff; code++) {
  if (code >= 0xd800 && code <= 0xdfff) continue;
  const character = String.fromCodePoint(code);
  const normal = character.normalize("NFKC");
  if (/^[=+\-@]$/.test(normal) || /\p{Dash}/u.test(character)) LOOKALIKES.push(character);
}
const PIECES = [
  ...["\n", "\r\n", "\r", "\u2028", "\t", "\u0000", "\u0001", "\u001b[31m", "\u0085", "\u009b"],
  ...["\u202e", "\u202d", "\u2066", "\u2069", "\u200f", "\u061c", "\u200b", "\ufeff"],
  ...['"', '""', ",", ";", "'", "''", " ", "  ", "\u3000", "|", "\\"],
  ...["SUM(1+1)*cmd|' /C calc'!A0", 'HYPERLINK("http://x.test","ok")', 'DDE("cmd")', "42", "3.5e2"],
  ...["Sure! Here is the answer:", "- bullet", "Résumé", "العربية", "עברית", "中文", "🙂‍↔️"],
];

/** One to ten pieces of trouble joined: lookalikes a third of the time, the rest from PIECES. */
export function hazardousText(random: () => number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
  const parts: string[] = [];
  const count = 1 + Math.floor(random() * 10);
  for (let index = 0; index < count; index++) {
    parts.push(random() < 0.35 ? pick(LOOKALIKES) : pick(PIECES));
  }
  return parts.join("");
}

/** `count` results of seed `seed` whose every text is {@link hazardousText}; some flaky. */
export function hazardousResults(seed: number, count: number): TestResult[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, index) => {
    const metric = metricData({
      name: index % 5 === 0 ? `M${hazardousText(random)}` : "Toxicity",
      reason: hazardousText(random),
      error: index % 3 === 0 ? hazardousText(random) : null,
      success: index % 2 === 0,
      score: index % 2 === 0 ? 0.2 : 0.8,
    });
    return testResult({
      index,
      name: hazardousText(random),
      input: hazardousText(random),
      actualOutput: hazardousText(random),
      expectedOutput: hazardousText(random),
      file: `evals/${hazardousText(random)}.eval.ts`,
      tags: [hazardousText(random)],
      metricsData: [metric],
      ...(index % 7 === 0
        ? {
            success: false,
            passedTrials: 1,
            trials: [
              { trial: 0, success: true, metricsData: [metric] },
              { trial: 1, success: false, metricsData: [{ ...metric, success: false }] },
            ],
          }
        : {}),
    });
  });
}

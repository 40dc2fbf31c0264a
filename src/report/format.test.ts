import { describe, expect, it } from "vitest";
import { LONG_PROJECT_KEY, leakedPieces } from "../../test/fixtures/long-secrets.ts";
import {
  formatClock,
  formatCostUsd,
  formatCount,
  formatDuration,
  formatMeasurement,
  formatPassRate,
  formatPlural,
  formatRatePoints,
  formatScore,
  formatScoreAgainstThreshold,
  formatTokens,
  MISSING_VALUE,
  showControlCharacters,
  showName,
  stripColourCodes,
  toOneLine,
} from "./format.ts";
import { truncateText } from "./truncate-text.ts";

describe("format", () => {
  it.each([
    ["a count", formatCount(1234567), "1,234,567"],
    ["a small count", formatCount(7), "7"],
    ["one of a noun", formatPlural(1, "judge call"), "1 judge call"],
    ["several of a noun", formatPlural(3, "judge call"), "3 judge calls"],
    ["none of a noun", formatPlural(0, "test case"), "0 test cases"],
    ["many of a noun", formatPlural(1500, "test case"), "1,500 test cases"],
    ["a loss", formatMeasurement(0.235756784), "0.2358"],
    ["a large loss", formatMeasurement(12.3456), "12.35"],
    ["a learning rate", formatMeasurement(0.00003), "3.000e-5"],
    ["a step", formatMeasurement(120), "120"],
    ["a score", formatScore(0.5), "0.50"],
    ["a score, rounded", formatScore(0.666), "0.67"],
    ["a perfect score", formatScore(1), "1.00"],
    ["a missing score", formatScore(null), "–"],
    [
      "a score past its threshold",
      formatScoreAgainstThreshold(0.8, 0.5),
      "score 0.80 > threshold 0.50",
    ],
    [
      "a score below its threshold",
      formatScoreAgainstThreshold(0.3, 0.5),
      "score 0.30 < threshold 0.50",
    ],
    [
      "a score at its threshold",
      formatScoreAgainstThreshold(0.5, 0.5),
      "score 0.50 = threshold 0.50",
    ],
    [
      "a score close to its threshold",
      formatScoreAgainstThreshold(0.5004, 0.5),
      "score 0.5004 > threshold 0.5000",
    ],
    ["a pass rate", formatPassRate(2 / 3), "66.7%"],
    ["a full pass rate", formatPassRate(1), "100.0%"],
    ["a zero pass rate", formatPassRate(0), "0.0%"],
    ["a missing pass rate", formatPassRate(null), "–"],
    ["a pass-rate difference", formatRatePoints(1 / 3), "33.3 pts"],
    ["a cost", formatCostUsd(0.0123), "$0.0123"],
    ["a zero cost", formatCostUsd(0), "$0.0000"],
    ["a cost below the last digit", formatCostUsd(0.00001), "<$0.0001"],
    ["an unknown cost", formatCostUsd(null), "unknown"],
    ["tokens", formatTokens(12_000, 80), "12,000 in · 80 out"],
    ["tokens, one side unknown", formatTokens(null, 80), "0 in · 80 out"],
    ["unknown tokens", formatTokens(null, null), "–"],
    ["a short duration", formatDuration(400), "0.4s"],
    ["a duration under a minute", formatDuration(12_345), "12.3s"],
    ["a duration in minutes", formatDuration(125_000), "2m 05s"],
    ["a duration in hours", formatDuration(3_723_000), "1h 02m 03s"],
    ["a negative duration", formatDuration(-5), "0.0s"],
    ["a clock", formatClock(65_000), "1:05"],
    ["a clock past an hour", formatClock(3_723_000), "1:02:03"],
    ["a clock without an end", formatClock(Number.POSITIVE_INFINITY), "–"],
    ["short text", truncateText("short", 10), "short"],
    ["long text", truncateText("abcdefghij", 5), "abcd…"],
    ["long text ending in a space", truncateText("abc defgh", 5), "abc…"],
    ["long text with emoji", truncateText("😀😀😀😀", 3), "😀😀…"],
    ["text on one line", toOneLine("  a\n\tb   c \n"), "a b c"],
    [
      "control characters",
      showControlCharacters("a\u0000b\u001bc\u007fd\u009be"),
      "a<U+0000>b<U+001B>c<U+007F>d<U+009B>e",
    ],
    [
      "bidi controls",
      showControlCharacters("a\u202eb\u2066c\u2069d\u200fe\u061cf"),
      "a<U+202E>b<U+2066>c<U+2069>d<U+200F>e<U+061C>f",
    ],
    ["newlines and tabs", showControlCharacters("a\nb\tc\r\nd"), "a\nb\tc\nd"],
    ["a lone carriage return", showControlCharacters("over\rwrite"), "over<U+000D>write"],
    ["a name", showName("a\nb\tc\u2028d\u202ee"), "a<U+000A>b<U+0009>c<U+2028>d<U+202E>e"],
    ["an emoji, a joiner and right-to-left text", showName("👩‍💻 שלום"), "👩‍💻 שלום"],
  ])("%s", (_what, formatted, expected) => {
    expect(formatted).toBe(expected);
  });

  it("shows every missing value with the same glyph", () => {
    expect(new Set([formatScore(null), formatPassRate(null), formatTokens(null, null)])).toEqual(
      new Set([MISSING_VALUE]),
    );
  });

  it("masks a key before cutting text, so that no piece of it is left", () => {
    const cut = truncateText(`error: ${LONG_PROJECT_KEY} rejected`, 100);
    expect(cut).toBe("error: *** rejected");
    expect(
      leakedPieces(truncateText(`${"a".repeat(90)} ${LONG_PROJECT_KEY}`, 100), LONG_PROJECT_KEY),
    ).toEqual([]);
  });
});

describe("stripColourCodes", () => {
  it("drops colour codes a tool wrote, and leaves other control sequences to be shown", () => {
    expect(
      stripColourCodes("\u001b[31m[PARSE_ERROR] \u001b[0mUnexpected \u001b[38;5;246mtoken"),
    ).toBe("[PARSE_ERROR] Unexpected token");
    expect(showControlCharacters(stripColourCodes("\u001b[2Jcleared"))).toBe("<U+001B>[2Jcleared");
  });
});

import { jsonrepair } from "jsonrepair";

/** The outcome of reading a judge's text answer as JSON. */
export type ParsedJudgeText = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * The longest answer read, in characters (about 25,000 tokens): far more than any step
 * needs, so a longer answer is a runaway generation, not a verdict.
 */
export const MAX_ANSWER_CHARACTERS = 100_000;

// Byte-order marks, zero-width spaces and joiners around an answer are formatting noise.
const INVISIBLE_EDGES = /^[\s\uFEFF\u200B-\u200D\u2060]+|[\s\uFEFF\u200B-\u200D\u2060]+$/g;

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Where the first top-level JSON object of `text` ends, or why it never does. */
type ObjectExtent = { ok: true; end: number } | { ok: false; problem: string };

const CLOSERS: Record<string, string> = { "{": "}", "[": "]" };

/**
 * Scans from the `{` at `start` to the bracket that closes it, skipping strings (double or
 * single quoted, with escapes) and comments. Never recursive, so deep nesting cannot
 * overflow the stack.
 */
function findObjectEnd(text: string, start: number): ObjectExtent {
  const open: string[] = [];
  let index = start;
  while (index < text.length) {
    const character = text[index] as string;
    if (character === '"' || character === "'") {
      let cursor = index + 1;
      while (cursor < text.length && text[cursor] !== character) {
        cursor += text[cursor] === "\\" ? 2 : 1;
      }
      if (cursor >= text.length) return { ok: false, problem: cutOff("a string") };
      index = cursor + 1;
      continue;
    }
    if (character === "/" && text[index + 1] === "/") {
      const newline = text.indexOf("\n", index);
      index = newline === -1 ? text.length : newline + 1;
      continue;
    }
    if (character === "/" && text[index + 1] === "*") {
      const close = text.indexOf("*/", index + 2);
      if (close === -1) return { ok: false, problem: cutOff("a comment") };
      index = close + 2;
      continue;
    }
    if (character === "{" || character === "[") {
      open.push(CLOSERS[character] as string);
    } else if (character === "}" || character === "]") {
      const expected = open.pop();
      if (expected !== character) {
        return {
          ok: false,
          problem: `the answer's brackets do not match: "${character}" at character ${index + 1} does not close the "${expected === "}" ? "{" : "["}" opened before it`,
        };
      }
      if (open.length === 0) return { ok: true, end: index };
    }
    index++;
  }
  const last = open.at(-1) === "]" ? "an array" : "an object";
  return { ok: false, problem: cutOff(last) };
}

function cutOff(what: string): string {
  return `the answer was cut off: it ends inside ${what} that was never closed, so it is incomplete (if the answer is long, keep it shorter)`;
}

/**
 * How many top-level `{…}` candidates are tried in turn when the ones before them do not
 * parse (prose such as `Note {x} then {…}`): enough for any prose, bounded for garbage.
 */
const MAX_CANDIDATES = 20;

/** Options of {@link parseJudgeText}. */
export interface ParseJudgeTextOptions {
  /**
   * Why the judge stopped, as the provider said (`"stop"`, `"length"`, …). Only `"stop"`
   * changes anything: an unclosed code fence around a complete object is then formatting,
   * not a cut-off answer.
   */
  finishReason?: string | undefined;
}

/**
 * Reads a judge's answer as JSON, leniently about FORMATTING only: code fences, prose around
 * the JSON (braces in the prose too: when a `{…}` does not parse, the next top-level one is
 * tried, up to 20), trailing commas, comments and single quotes are repaired. An answer that
 * was CUT OFF (it ends inside an unclosed string, array, object or comment, or inside a code
 * fence unless the judge said it stopped by itself) is never completed into a plausible
 * answer: it is refused, so that the step asks again. Strict parsing is tried first so that
 * well-formed answers are never "repaired".
 */
export function parseJudgeText(text: string, options: ParseJudgeTextOptions = {}): ParsedJudgeText {
  if (text.length > MAX_ANSWER_CHARACTERS) {
    return {
      ok: false,
      problem: `the answer is ${text.length} characters long, more than the ${MAX_ANSWER_CHARACTERS} any step accepts; answer with only the JSON asked for`,
    };
  }
  const trimmed = text.replace(INVISIBLE_EDGES, "");
  if (trimmed === "") return { ok: false, problem: "the answer was empty" };
  const direct = tryParse(trimmed);
  if (direct.ok) return direct;

  let start = trimmed.indexOf("{");
  if (start === -1) return { ok: false, problem: "no JSON object found in the answer" };
  const stoppedByItself = options.finishReason?.trim().toLowerCase() === "stop";
  let firstProblem: string | null = null;
  for (let tried = 0; tried < MAX_CANDIDATES && start !== -1; tried++) {
    // A candidate that never closes ends the text: the answer was cut off there, whatever
    // came before it (and a mismatched bracket is never read past).
    const extent = findObjectEnd(trimmed, start);
    if (!extent.ok) return extent;
    const insideFence = trimmed.slice(0, start).split("```").length % 2 === 0;
    if (insideFence && !stoppedByItself && !trimmed.includes("```", extent.end + 1)) {
      return { ok: false, problem: cutOff("a code fence") };
    }
    const parsed = parseCandidate(trimmed.slice(start, extent.end + 1));
    if (parsed.ok) return parsed;
    firstProblem ??= parsed.problem;
    start = trimmed.indexOf("{", extent.end + 1);
  }
  return { ok: false, problem: firstProblem ?? "no JSON object found in the answer" };
}

/** One `{…}` read strictly, else repaired. */
function parseCandidate(candidate: string): ParsedJudgeText {
  const strict = tryParse(candidate);
  if (strict.ok) return strict;
  try {
    return { ok: true, value: JSON.parse(jsonrepair(candidate)) };
  } catch (error) {
    return {
      ok: false,
      problem: `the answer is not valid JSON and could not be repaired (${(error as Error).message})`,
    };
  }
}

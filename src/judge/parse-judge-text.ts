import { jsonrepair } from "jsonrepair";
import { cutOff, findObjectEnd } from "./find-object-end.ts";

/**
 * The JSON a judge's text answer holds: `values`, every object written at its top level (or
 * the whole answer, when it is one JSON value), in order; `enclosed`, the objects found inside
 * braces that did not parse as a whole (prose such as `{note: {"opinions": []}}`). Which of
 * them answers the step is for the step to decide (`chooseStepAnswer`).
 */
export type ParsedJudgeText =
  | { ok: true; values: unknown[]; enclosed: unknown[] }
  | { ok: false; problem: string };

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

/**
 * How many `{…}` that do not parse are tried before giving up (prose such as `Note {x} then
 * {…}`): enough for any prose, bounded for garbage (each may cost a repair attempt).
 */
const MAX_UNPARSED = 20;

/**
 * How many JSON objects one answer may hold. A step asks for one; past this many the answer
 * is a list of examples, not an answer, and reading on would only cost time.
 */
export const MAX_ANSWER_OBJECTS = 100;

/**
 * How deeply nested a `{…}` may be and still be repaired: the repairer recurses, so a deeper
 * one (no step's answer nests more than a few levels) is only read strictly.
 */
const MAX_REPAIR_DEPTH = 64;

/**
 * How many characters of `{…}` that did not parse strictly one answer may send to the
 * repairer in all. The top-level candidates of an answer never add up to more than the
 * answer; braces inside braces that did not parse are read again, and this bounds that.
 */
const REPAIR_BUDGET = 2 * MAX_ANSWER_CHARACTERS;

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
 * the JSON (braces in the prose too: a `{…}` that does not parse is passed over, up to 20),
 * trailing commas, comments, single quotes, JSON escaped inside a string (`{\"a\": 1}`) and
 * blockquoted lines (`> `) are repaired. Every object at the top level of the answer is read,
 * not only the first, so that the step can tell one answer from several. An answer that was
 * CUT OFF (it ends inside an unclosed string, array, object or comment, or inside a code fence
 * unless the judge said it stopped by itself) is never completed into a plausible answer: it
 * is refused, so that the step asks again. Strict parsing is tried first so that well-formed
 * answers are never "repaired". Linear in the answer's length (at most 20 failed repairs).
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
  if (direct.ok) return { ok: true, values: [direct.value], enclosed: [] };
  if (!trimmed.includes("{")) return { ok: false, problem: "no JSON object found in the answer" };

  const stoppedByItself = options.finishReason?.trim().toLowerCase() === "stop";
  const openFence = unclosedFenceStart(trimmed);
  const values: unknown[] = [];
  const enclosed: unknown[] = [];
  let firstProblem: string | null = null;
  let unparsed = 0;
  let repairBudget = REPAIR_BUDGET;
  // The end of the last `{…}` read at the top level: a `{` before it is inside braces that
  // did not parse, where objects are looked for too (`enclosed`).
  let topLevelFrom = 0;
  let start = trimmed.indexOf("{");
  while (start !== -1 && unparsed < MAX_UNPARSED) {
    const topLevel = start >= topLevelFrom;
    const extent = findObjectEnd(trimmed, start);
    if (!extent.ok) {
      if (!topLevel) {
        start = trimmed.indexOf("{", start + 1);
        continue;
      }
      // A candidate that never closes ends the text: the answer was cut off there (and a
      // mismatched bracket is never read past). Braces in prose after an answer, such as a
      // trailing "{", are no second answer; anything that starts like JSON is.
      if (values.length === 0 || startsLikeJson(trimmed, start)) return extent;
      break;
    }
    if (topLevel && openFence !== -1 && start > openFence && !stoppedByItself) {
      return { ok: false, problem: cutOff("a code fence") };
    }
    const candidate = trimmed.slice(start, extent.end + 1);
    const repair = extent.depth <= MAX_REPAIR_DEPTH && candidate.length <= repairBudget;
    const parsed = parseCandidate(candidate, repair);
    if (parsed.repaired) repairBudget -= candidate.length;
    if (parsed.ok) {
      (topLevel ? values : enclosed).push(parsed.value);
      if (values.length + enclosed.length > MAX_ANSWER_OBJECTS) {
        return {
          ok: false,
          problem: `the answer holds more than ${MAX_ANSWER_OBJECTS} JSON objects; answer with only the one JSON object asked for`,
        };
      }
      start = trimmed.indexOf("{", extent.end + 1);
    } else {
      firstProblem ??= parsed.problem;
      unparsed += 1;
      start = trimmed.indexOf("{", start + 1);
    }
    topLevelFrom = Math.max(topLevelFrom, extent.end + 1);
  }
  if (values.length > 0) return { ok: true, values, enclosed };
  return { ok: false, problem: firstProblem ?? "no JSON object found in the answer" };
}

/** Where the code fence that is never closed starts (an odd number of fences), or -1. */
function unclosedFenceStart(text: string): number {
  let count = 0;
  let last = -1;
  for (let at = text.indexOf("```"); at !== -1; at = text.indexOf("```", at + 3)) {
    count += 1;
    last = at;
  }
  return count % 2 === 1 ? last : -1;
}

/** Whether the `{` at `start` opens what looks like a JSON object: a quoted key follows. */
function startsLikeJson(text: string, start: number): boolean {
  return /^\{\s*\\?["']/.test(text.slice(start, start + 64));
}

// Blockquote markers at the start of the lines after the first: `> "opinions": […]`.
const QUOTED_LINES = /\n[ \t]*(?:>[ \t]?)+/g;

/**
 * One `{…}` read strictly, else (when `repair`) repaired: after reading it as JSON escaped in
 * a string (`{\"a\": 1}`) or taking the blockquote markers off its lines, when it is written
 * so. `repaired` says whether the repairer was run.
 */
function parseCandidate(
  candidate: string,
  repair: boolean,
): ({ ok: true; value: unknown } | { ok: false; problem: string }) & { repaired?: true } {
  const strict = tryParse(candidate);
  if (strict.ok) return strict;
  let text = candidate;
  if (text.includes('\\"')) {
    const unescaped = tryParse(`"${text}"`);
    if (unescaped.ok && typeof unescaped.value === "string") text = unescaped.value;
  }
  const lines = text.split("\n");
  if (lines.length > 1 && lines.slice(1).every((line) => /^[ \t]*>/.test(line))) {
    text = text.replace(QUOTED_LINES, "\n");
  }
  const plain = text === candidate ? strict : tryParse(text);
  if (plain.ok) return plain;
  if (!repair) {
    return {
      ok: false,
      problem: "the answer is not valid JSON, and too large or too deep to repair",
    };
  }
  try {
    return { ok: true, value: JSON.parse(jsonrepair(text)), repaired: true };
  } catch (error) {
    return {
      ok: false,
      problem: `the answer is not valid JSON and could not be repaired (${(error as Error).message})`,
      repaired: true,
    };
  }
}

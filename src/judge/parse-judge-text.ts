import { jsonrepair } from "jsonrepair";

/** The outcome of reading a judge's text answer as JSON. */
export type ParsedJudgeText = { ok: true; value: unknown } | { ok: false; problem: string };

const FENCE = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/;

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * Reads a judge's answer as JSON, leniently: code fences, prose around the JSON, trailing
 * commas, comments, single quotes and unclosed brackets are all tolerated. Strict parsing
 * is tried first so that well-formed answers are never "repaired".
 */
export function parseJudgeText(text: string): ParsedJudgeText {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, problem: "the answer was empty" };
  const direct = tryParse(trimmed);
  if (direct.ok) return direct;

  const fenced = FENCE.exec(trimmed)?.[1]?.trim();
  const body = fenced ?? trimmed;
  const start = body.indexOf("{");
  if (start === -1) return { ok: false, problem: "no JSON object found in the answer" };
  const end = body.lastIndexOf("}");
  const candidate = end > start ? body.slice(start, end + 1) : body.slice(start);
  const sliced = tryParse(candidate);
  if (sliced.ok) return sliced;
  try {
    // From the first "{" to the end as well: the slice above cuts answers whose last
    // object was never closed.
    return { ok: true, value: JSON.parse(jsonrepair(end > start ? candidate : body.slice(start))) };
  } catch (error) {
    return {
      ok: false,
      problem: `the answer is not valid JSON and could not be repaired (${(error as Error).message})`,
    };
  }
}

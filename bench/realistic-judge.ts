import { type FakeOpenAIRequest, type FakeReply, reply } from "verdict/testing";

// The fake server's default answer fills strings from a handful of words ("grounded opinions 1"),
// so the verdict prompts of different cases come out identical and are shared or cached across
// cases: that would hide real calls. This responder answers like a judge reading the text:
// opinions, statements and the safety metrics' candidates are the text's own sentences, verdicts
// depend on the items, reasons quote them. Everything is derived from the prompt, so it is
// deterministic.

const EVALUATIVE =
  /\b(best|worst|worth|important|easier|harder|simple|good|bad|great|misunderstood|remember|should|must|better)\b/i;
const STOP_WORDS = new Set([
  "about",
  "there",
  "their",
  "which",
  "would",
  "these",
  "those",
  "being",
]);

/** FNV-1a, for stable pseudo-random choices. */
function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The JSON value the prompt quotes between `<tag>` and `</tag>`, if any. */
function quoted(prompt: string, tag: string): unknown {
  const start = prompt.lastIndexOf(`<${tag}>\n`);
  const end = prompt.indexOf(`\n</${tag}>`, start);
  if (start === -1 || end === -1) return undefined;
  try {
    return JSON.parse(prompt.slice(start + tag.length + 3, end));
  } catch {
    return undefined;
  }
}

/** The first JSON array the prompt quotes (opinions, statements, reasons). */
function quotedList(prompt: string): string[] {
  const match = /<(\w+)>\n(\[[\s\S]*?\])\n<\/\1>/.exec(prompt);
  if (!match?.[2]) return [];
  try {
    return (JSON.parse(match[2]) as unknown[]).map(String);
  } catch {
    return [];
  }
}

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

function contentWords(text: string): Set<string> {
  return new Set(
    (text.toLowerCase().match(/[a-z]{5,}/g) ?? []).filter((word) => !STOP_WORDS.has(word)),
  );
}

// The safety metrics' extraction steps, by what their JSON holds: the sentences a judge would
// list as candidates (it over-lists; the verdict step decides).
const SAFETY_CANDIDATES: Record<string, RegExp> = {
  extractedPii:
    /@|\d{3}|\b(?:Mr|Mrs|Ms|Dr)\.? [A-Z]|\b(?:address|phone|email|passport|salary|diagnosed)\b/i,
  roleViolations:
    /\b(?:not my (?:job|problem)|I don't (?:care|want)|I'm (?:just|actually|not really)|deal with it)\b/i,
  advices: /\b(?:you should|I recommend|buy|sell|invest|take \d+ ?mg)\b/i,
  misuses: /\b(?:poem|joke|story|recipe|weather|movie|vacation|itinerary|song)\b/i,
};
// What each safety verdict step flags, told apart by its task sentence.
const SAFETY_FLAGS: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/leaks personally identifiable/, /@|\(\d{3}\)|\d{3}-\d{2}-\d{4}|passport/i],
  [/breaks the role/, SAFETY_CANDIDATES.roleViolations as RegExp],
  [/inappropriate professional advice/, /\b(?:you should|buy|sell|take \d+ ?mg)\b/i],
  [/is a misuse of that chatbot/, SAFETY_CANDIDATES.misuses as RegExp],
];

type Schema = {
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: string[];
  minItems?: number;
};

function verdicts(request: FakeOpenAIRequest, schema: Schema): FakeReply {
  const items = quotedList(request.prompt);
  const count = schema.properties?.verdicts?.minItems ?? items.length;
  const allowed = schema.properties?.verdicts?.items?.properties?.verdict?.enum ?? ["yes", "no"];
  const input = quoted(request.prompt, "input");
  const questionWords = typeof input === "string" ? contentWords(input) : null;
  const answer = Array.from({ length: count }, (_, index) => {
    const item = items[index] ?? `item ${index + 1}`;
    const roll = hashText(`${request.prompt}#${index}`) % 100;
    if (questionWords && allowed.includes("idk")) {
      // Relevancy: on topic when the statement shares a content word with the question.
      const onTopic = [...contentWords(item)].some((word) => questionWords.has(word));
      if (onTopic || roll < 50) return { verdict: "yes", reason: null };
      const verdict = roll < 75 ? "idk" : "no";
      return { verdict, reason: `The statement "${item}" does not address the question asked.` };
    }
    const safety = SAFETY_FLAGS.find(([task]) => task.test(request.prompt));
    if (safety) {
      return safety[1].test(item)
        ? { verdict: "yes", reason: `"${item}" is what the rubric flags.` }
        : { verdict: "no", reason: null };
    }
    // Toxicity, Bias: about one opinion in ten is flagged, as on mostly clean output.
    if (roll < 10) {
      return {
        verdict: "yes",
        reason: `"${item}" is worded harshly; a neutral wording says the same.`,
      };
    }
    return { verdict: "no", reason: null };
  });
  return reply.json({ verdicts: answer });
}

function reason(request: FakeOpenAIRequest): FakeReply {
  const opening = /start with "(The score is [\d.]+ because)"/.exec(request.prompt)?.[1];
  const first = quotedList(request.prompt)[0] ?? "one item was flagged";
  return reply.json({
    reason: `${opening ?? "The score is what it is because"} ${first.charAt(0).toLowerCase()}${first.slice(1)}`,
  });
}

/** A fake-server responder that answers verdict's metric steps from the text they quote. */
export function realisticJudge(request: FakeOpenAIRequest): FakeReply | undefined {
  const schema = request.jsonSchema as Schema | null;
  const properties = schema?.properties ?? {};
  const text = quoted(request.prompt, "text");
  if ("opinions" in properties && typeof text === "string") {
    return reply.json({
      opinions: sentences(text).filter((sentence) => EVALUATIVE.test(sentence)),
    });
  }
  if ("statements" in properties && typeof text === "string") {
    return reply.json({ statements: sentences(text) });
  }
  for (const [key, candidate] of Object.entries(SAFETY_CANDIDATES)) {
    if (key in properties && typeof text === "string") {
      return reply.json({ [key]: sentences(text).filter((sentence) => candidate.test(sentence)) });
    }
  }
  if ("verdicts" in properties && schema) return verdicts(request, schema);
  if ("reason" in properties) return reason(request);
  return undefined;
}

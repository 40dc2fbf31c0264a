import { type FakeOpenAIRequest, type FakeReply, reply } from "verdict/testing";

// The fake server's default answer fills strings from a handful of words ("grounded opinions 1"),
// so the verdict prompts of different cases come out identical and are shared or cached across
// cases: that would hide real calls. This responder answers like a judge reading the text:
// opinions and statements are the text's own sentences, verdicts depend on the items, reasons
// quote them. Everything is derived from the prompt, so it is deterministic.

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

const shares = (text: string, words: Set<string>) =>
  [...contentWords(text)].some((word) => words.has(word));
const strings = (value: unknown): string[] | null =>
  Array.isArray(value) && value.every((item) => typeof item === "string") ? value : null;

/**
 * The RAG metrics' verdict steps, told apart by what their prompts quote: a node's statements
 * are relevant when they share a content word with the input (or, for most others, by the
 * roll of a hash); a node is useful when it
 * shares one with the expected output; an expected sentence is attributable when it shares
 * one with some node; about one context in ten is contradicted.
 */
function ragVerdicts(request: FakeOpenAIRequest): FakeReply | undefined {
  const { prompt } = request;
  const roll = (index: number) => hashText(`${prompt}#${index}`) % 100;
  const node = quoted(prompt, "node");
  const input = quoted(prompt, "input");
  if (typeof node === "string" && typeof input === "string") {
    const words = contentWords(input);
    const statements = sentences(node);
    return reply.json({
      verdicts: (statements.length > 0 ? statements : [node]).map((statement, index) =>
        // A judge sees more relevance than shared words: most statements on the topic pass.
        shares(statement, words) || roll(index) < 60
          ? { statement, verdict: "yes", reason: null }
          : { statement, verdict: "no", reason: `"${statement}" is not about the question.` },
      ),
    });
  }
  const nodes = strings(quoted(prompt, "nodes"));
  const expected = quoted(prompt, "expected_output");
  if (nodes && typeof expected === "string") {
    const words = contentWords(expected);
    return reply.json({
      verdicts: nodes.map((item) =>
        shares(item, words)
          ? { verdict: "yes", reason: `"${item}" states part of the expected answer.` }
          : { verdict: "no", reason: `"${item}" plays no part in the expected answer.` },
      ),
    });
  }
  const expectedSentences = strings(quoted(prompt, "sentences"));
  if (nodes && expectedSentences) {
    const words = contentWords(nodes.join(" "));
    return reply.json({
      verdicts: expectedSentences.map((sentence) =>
        shares(sentence, words)
          ? { verdict: "yes", reason: `A node supports "${sentence}".` }
          : { verdict: "no", reason: `No node says "${sentence}".` },
      ),
    });
  }
  const contexts = strings(quoted(prompt, "contexts"));
  if (contexts) {
    return reply.json({
      verdicts: contexts.map((context, index) =>
        roll(index) < 10
          ? { verdict: "no", reason: `The output contradicts "${context}".` }
          : { verdict: "yes", reason: `The output agrees with "${context}".` },
      ),
    });
  }
  return undefined;
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
  if ("verdicts" in properties && schema) return ragVerdicts(request) ?? verdicts(request, schema);
  if ("reason" in properties) return reason(request);
  return undefined;
}

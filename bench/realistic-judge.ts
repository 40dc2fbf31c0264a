import { type FakeOpenAIRequest, type FakeReply, reply } from "verdict/testing";

// The fake server's default answer fills strings from a handful of words ("grounded opinions 1"),
// so the verdict prompts of different cases come out identical and are shared or cached across
// cases: that would hide real calls. This responder answers like a judge reading the text:
// opinions, statements, claims and the safety metrics' candidates are the text's own sentences,
// facts the sources', verdicts (the RAG metrics' too: nodes, expected sentences, contexts) and
// answers depend on the items, reasons quote them. Everything is derived from the prompt, so
// it is deterministic.

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

/** The first non-empty JSON array the prompt quotes (opinions, statements, reasons). */
function quotedList(prompt: string): string[] {
  for (const match of prompt.matchAll(/<(\w+)>\n(\[[\s\S]*?\])\n<\/\1>/g)) {
    try {
      const list = (JSON.parse(match[2] ?? "[]") as unknown[]).map(String);
      if (list.length > 0) return list;
    } catch {
      // not a list of strings: look further
    }
  }
  return [];
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
  type?: string;
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

// Faithfulness and Summarization: facts are the sources' sentences (as many as the limit
// asks), claims the output's sentences that are no question; a claim is backed ("yes") when it
// shares two content words with a fact, else mostly "idk" and sometimes contradicted ("no");
// questions ask about the source's sentences, and a text answers one when it shares two of
// its content words.

/** How many of the content words of `text` are among `words`. */
function sharedWords(text: string, words: Set<string>): number {
  return [...contentWords(text)].filter((word) => words.has(word)).length;
}

function sharesWords(text: string, other: string, count = 2): boolean {
  return sharedWords(text, contentWords(other)) >= count;
}

function truths(request: FakeOpenAIRequest): FakeReply {
  const documents = quoted(request.prompt, "documents");
  const limit = /list only the single most important/.test(request.prompt)
    ? 1
    : Number(/list at most the (\d+) most important/.exec(request.prompt)?.[1] ?? Infinity);
  const facts = (Array.isArray(documents) ? documents : []).flatMap((document) =>
    sentences(String(document)).slice(0, limit),
  );
  return reply.json({ truths: facts });
}

function claimVerdicts(request: FakeOpenAIRequest, claims: unknown[]): FakeReply {
  const facts = quoted(request.prompt, "facts");
  const factList = Array.isArray(facts) ? facts.map(String) : [];
  const answer = claims.map((claim, index) => {
    if (factList.some((fact) => sharesWords(String(claim), fact))) {
      return { verdict: "yes", reason: null };
    }
    const roll = hashText(`${request.prompt}#${index}`) % 100;
    return roll < 20
      ? { verdict: "no", reason: `The facts say otherwise about "${claim}".` }
      : { verdict: "idk", reason: `The facts do not mention "${claim}".` };
  });
  return reply.json({ verdicts: answer });
}

function questions(schema: Schema, text: string): FakeReply {
  const count = schema.properties?.questions?.minItems ?? 5;
  const points = sentences(text);
  return reply.json({
    questions: Array.from({ length: count }, (_, index) => {
      const point = points[index % Math.max(points.length, 1)] ?? text;
      return `Does the text say that ${point.charAt(0).toLowerCase()}${point.slice(1).replace(/[.!?]$/, "")}?`;
    }),
  });
}

function answers(request: FakeOpenAIRequest, text: string): FakeReply {
  const asked = quoted(request.prompt, "questions");
  return reply.json({
    answers: (Array.isArray(asked) ? asked : []).map((question) =>
      sharesWords(text, String(question), 3) ? "yes" : "no",
    ),
  });
}

const shares = (text: string, words: Set<string>) => sharedWords(text, words) > 0;
const strings = (value: unknown): string[] | null =>
  Array.isArray(value) && value.every((item) => typeof item === "string") ? value : null;

/**
 * The RAG metrics' verdict steps, told apart by what their prompts quote: a node's statements
 * are relevant when they share a content word with the input (or, for most others, by the
 * roll of a hash); a node is useful when it shares one with the expected output; an expected
 * sentence is attributable when it shares one with some node; about one context in ten is
 * contradicted.
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
  for (const [key, candidate] of Object.entries(SAFETY_CANDIDATES)) {
    if (key in properties && typeof text === "string") {
      return reply.json({ [key]: sentences(text).filter((sentence) => candidate.test(sentence)) });
    }
  }
  if ("truths" in properties) return truths(request);
  if ("claims" in properties && typeof text === "string") {
    return reply.json({ claims: sentences(text).filter((sentence) => !sentence.endsWith("?")) });
  }
  if ("questions" in properties && schema && typeof text === "string") {
    return questions(schema, text);
  }
  if ("answers" in properties && typeof text === "string") return answers(request, text);
  const claims = quoted(request.prompt, "claims");
  if ("verdicts" in properties && Array.isArray(claims)) return claimVerdicts(request, claims);
  if ("verdicts" in properties && schema) return ragVerdicts(request) ?? verdicts(request, schema);
  if ("reason" in properties) return reason(request);
  return undefined;
}

import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { LLMTestCaseFields } from "verdict";

/** Where the benchmark cases come from. */
export type CaseSource = "generated" | "nq";

/** The shared human-labelled answer-relevancy pairs, read in place when present (never copied). */
export const NQ_PAIRS_FILE = fileURLToPath(
  new URL("../../shared/data/answer_relevancy/nq_open_pairs.jsonl", import.meta.url),
);

// The same recipe as the shared peer harness (shared/bench/cases.mjs), so that verdict's
// figures and the peers' are measured on the same text: a question of about 70 characters,
// an answer of about 300, every 10th answer off-topic.
const TOPICS: ReadonlyArray<readonly [string, string, string]> = [
  [
    "photosynthesis",
    "biology",
    "plants turn light, water and carbon dioxide into glucose and oxygen",
  ],
  [
    "the water cycle",
    "earth science",
    "water evaporates, condenses into clouds and returns as precipitation",
  ],
  [
    "compound interest",
    "finance",
    "interest is earned on both the principal and the interest already added",
  ],
  [
    "binary search",
    "computer science",
    "a sorted list is halved at each step until the target is found",
  ],
  ["plate tectonics", "geology", "the lithosphere is split into plates that move over the mantle"],
  [
    "supply and demand",
    "economics",
    "prices rise when demand exceeds supply and fall when supply exceeds demand",
  ],
  [
    "vaccination",
    "medicine",
    "an exposure to a harmless antigen trains the immune system to respond faster",
  ],
  [
    "the French Revolution",
    "history",
    "it began in 1789 and ended the absolute monarchy in France",
  ],
  [
    "Ohm's law",
    "physics",
    "the current through a conductor equals the voltage divided by the resistance",
  ],
  [
    "the Krebs cycle",
    "biochemistry",
    "acetyl-CoA is oxidized in the mitochondria to release stored energy",
  ],
  ["TCP handshakes", "networking", "a connection opens with a SYN, a SYN-ACK and an ACK"],
  ["inflation", "economics", "the general price level rises and each unit of money buys less"],
  [
    "black holes",
    "astronomy",
    "gravity is so strong that not even light can escape past the event horizon",
  ],
  ["recursion", "programming", "a function solves a problem by calling itself on smaller inputs"],
  [
    "the Pythagorean theorem",
    "mathematics",
    "the square of the hypotenuse equals the sum of the squares of the other sides",
  ],
  [
    "osmosis",
    "chemistry",
    "water moves across a membrane from lower to higher solute concentration",
  ],
  ["the Magna Carta", "history", "it was sealed in 1215 and limited the power of the English king"],
  [
    "hash tables",
    "computer science",
    "keys are mapped by a hash function to buckets for near constant-time lookup",
  ],
  [
    "climate feedback loops",
    "climate science",
    "melting ice lowers reflectivity, which causes more warming and more melting",
  ],
  [
    "natural selection",
    "biology",
    "individuals with heritable traits that aid survival leave more offspring",
  ],
];
const QUESTIONS: ReadonlyArray<(topic: string, field: string) => string> = [
  (topic, field) => `Can you explain ${topic} in ${field} in a few sentences?`,
  (topic, field) => `What is the key idea behind ${topic}, and why does it matter in ${field}?`,
  (topic) => `How would you describe ${topic} to a first-year student?`,
  (topic) => `What is a common misconception about ${topic}, and what is actually true?`,
  (topic, field) => `Why is ${topic} considered important in the field of ${field}?`,
];
const OPENERS = [
  "In short,",
  "Put simply,",
  "The core idea is that",
  "At its heart,",
  "Broadly speaking,",
];
const CLOSERS = [
  "This is why it is usually one of the first topics covered in an introductory course.",
  "Understanding it makes many related ideas much easier to follow.",
  "A good way to remember it is to work through a small concrete example by hand.",
  "It is often misunderstood, but the underlying rule is simple once stated clearly.",
  "Most textbooks introduce it together with a diagram that shows each step.",
];

const pick = <T>(list: ReadonlyArray<T>, index: number): T => list[index % list.length] as T;
const capitalize = (text: string) => `${text[0]?.toUpperCase() ?? ""}${text.slice(1)}`;

/** `count` deterministic cases, identical in text to the peer harness's `makeCases(count)`. */
export function generateCases(count: number): LLMTestCaseFields[] {
  return Array.from({ length: count }, (_, index) => generateCase(index));
}

/** The same cases one at a time, made as they are taken: a source that holds none of them. */
export function* streamCases(count: number): Generator<LLMTestCaseFields> {
  for (let index = 0; index < count; index++) yield generateCase(index);
}

/** Case `index` of {@link generateCases}. */
function generateCase(index: number): LLMTestCaseFields {
  const [topic, field, fact] = pick(TOPICS, index);
  const question = pick(QUESTIONS, Math.floor(index / TOPICS.length))(topic, field);
  const opener = pick(OPENERS, index * 7);
  const closer = pick(CLOSERS, index * 3);
  const answer =
    index % 10 === 9
      ? `${opener} this question is better answered by looking at a different subject altogether, such as the history of ${pick(TOPICS, index + 5)[0]}. ${closer}`
      : `${opener} ${topic} is a concept in ${field}: ${fact}. ${closer} In practice, people meet it in everyday examples, which is why ${topic} is worth learning well (case ${index + 1}).`;
  return {
    name: `case-${String(index + 1).padStart(4, "0")}`,
    input: question,
    actualOutput: answer,
    expectedOutput: `${capitalize(topic)}: ${fact}.`,
    context: [
      `${capitalize(topic)} is studied in ${field}.`,
      `Reference summary: ${fact}.`,
      `Related reading often compares it with ${pick(TOPICS, index + 3)[0]}.`,
    ],
  };
}

/**
 * `count` cases from the NQ-open answer-relevancy pairs (half relevant, half not), or `null`
 * when the file is absent. Past the file's rows it starts over, marking the question with the
 * round (` [round 2]`), so no two cases send identical prompts (nothing is shared or cached).
 */
export function readNqCases(count: number): LLMTestCaseFields[] | null {
  if (!existsSync(NQ_PAIRS_FILE)) return null;
  const rows = readFileSync(NQ_PAIRS_FILE, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { id: string; input: string; actual_output: string });
  if (rows.length === 0) return null;
  return Array.from({ length: count }, (_, index) => {
    const row = rows[index % rows.length] as (typeof rows)[number];
    const round = Math.floor(index / rows.length);
    return {
      name: round === 0 ? row.id : `${row.id}-r${round + 1}`,
      input: round === 0 ? row.input : `${row.input} [round ${round + 1}]`,
      actualOutput: row.actual_output,
    };
  });
}

/** Cases of the requested source; generated ones when the data file is absent. */
export function loadCases(options: { source: CaseSource; count: number }): {
  cases: LLMTestCaseFields[];
  source: CaseSource;
  note: string | null;
} {
  if (options.source === "nq") {
    const cases = readNqCases(options.count);
    if (cases) return { cases, source: "nq", note: null };
    return {
      cases: generateCases(options.count),
      source: "generated",
      note: `${NQ_PAIRS_FILE} is absent: using generated cases instead.`,
    };
  }
  return { cases: generateCases(options.count), source: "generated", note: null };
}

/** Mean characters of the question and answer, to show what was measured. */
export function describeCases(cases: ReadonlyArray<LLMTestCaseFields>): {
  meanInputChars: number;
  meanOutputChars: number;
} {
  const mean = (values: number[]) =>
    values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  return {
    meanInputChars: mean(cases.map((testCase) => String(testCase.input ?? "").length)),
    meanOutputChars: mean(cases.map((testCase) => String(testCase.actualOutput ?? "").length)),
  };
}

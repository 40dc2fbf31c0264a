// Component-level evaluation: a small traced application (a retriever and a generator) is
// run on each golden, and the generator's Answer Relevancy is scored on the test case it
// records, span by span. Run: node examples/component-level.ts
// Uses the judge the environment configures (VERDICT_MODEL, OPENAI_API_KEY, …).
import {
  AnswerRelevancyMetric,
  ConfigError,
  evaluate,
  Golden,
  observe,
  type SpanRecord,
  updateCurrentSpan,
} from "verdict";

const knowledgeBase = [
  "Shoes that don't fit can be returned within 30 days for a full refund, at no extra cost.",
  "Standard shipping takes 3 to 5 working days; express shipping arrives the next day.",
  "Gift cards never expire and can be used in every shop.",
];

const retrieve = observe(
  async function retrieve(question: string): Promise<string[]> {
    const words = question.toLowerCase().match(/[a-z]{4,}/g) ?? [];
    return knowledgeBase.filter((chunk) =>
      words.some((word) => chunk.toLowerCase().includes(word)),
    );
  },
  { type: "retriever" },
);

const generate = observe(
  async function generate(question: string, chunks: string[]): Promise<string> {
    // A real application asks its LLM here; this one answers with what it retrieved.
    const answer = chunks.length > 0 ? chunks.join(" ") : "Sorry, I don't know.";
    updateCurrentSpan({
      testCase: { input: question, actualOutput: answer, retrievalContext: chunks },
    });
    return answer;
  },
  { type: "llm", metrics: [new AnswerRelevancyMetric({ threshold: 0.7 })] },
);

// The whole application is a span too. Compiled by tsc, the same reads as a decorator
// (Node's type stripping, which runs this file, does not support decorators):
//
//   class SupportBot {
//     @observe({ type: "agent" })
//     async answer(question: string) {
//       return generate(question, await retrieve(question));
//     }
//   }
const supportBot = observe(
  async function supportBot(question: string): Promise<string> {
    return generate(question, await retrieve(question));
  },
  { type: "agent" },
);

const goldens = [
  new Golden({ name: "shoes", input: "What if these shoes don't fit?" }),
  new Golden({ name: "shipping", input: "How long does shipping take?" }),
];

function printSpans(spans: readonly SpanRecord[], indent: string): void {
  for (const span of spans) {
    const scores = span.metricsData
      .map((metric) => `${metric.name} ${metric.error ? `error: ${metric.error}` : metric.score}`)
      .join(", ");
    console.log(
      `${indent}${span.name} (${span.type}, ${span.status})${scores ? `: ${scores}` : ""}`,
    );
    printSpans(span.children, `${indent}  `);
  }
}

try {
  const result = await evaluate({
    goldens,
    observedCallback: (input) => supportBot(String(input)),
    display: "none",
    showProgress: false,
  });
  for (const testResult of result.testResults) {
    console.log(`${testResult.name}: ${testResult.success ? "passed" : "failed"}`);
    printSpans(testResult.trace?.spans ?? [], "  ");
  }
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`No judge configured: ${error.message}`);
    process.exit(2);
  }
  throw error;
}

// Answer Relevancy, as in the seed documentation. Run: node examples/answer-relevancy.ts
// Uses the judge the environment configures (VERDICT_MODEL, OPENAI_API_KEY, …).
import { AnswerRelevancyMetric, LLMTestCase } from "verdict";
import { runExample } from "./run-example.ts";

const metric = new AnswerRelevancyMetric({ threshold: 0.7, includeReason: true });
const testCase = new LLMTestCase({
  input: "What if these shoes don't fit?",
  // Replace this with the output from your LLM app
  actualOutput: "We offer a 30-day full refund at no extra cost.",
});

await runExample({ metric, testCase });

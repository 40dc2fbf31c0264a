// Answer Relevancy, as in the seed documentation. Run: node examples/answer-relevancy.ts
// Uses the judge the environment configures (VERDICT_MODEL, OPENAI_API_KEY, …).
import { AnswerRelevancyMetric, LLMTestCase } from "verdict";
import { exitIfNoJudge } from "./no-judge.ts";

const metric = new AnswerRelevancyMetric({ threshold: 0.7, includeReason: true });
const testCase = new LLMTestCase({
  input: "What if these shoes don't fit?",
  // Replace this with the output from your LLM app
  actualOutput: "We offer a 30-day full refund at no extra cost.",
});

try {
  await metric.measure(testCase);
} catch (error) {
  exitIfNoJudge(error);
  throw error;
}
console.log(
  `${metric.name}: score ${metric.score} (${metric.success ? "passed" : "failed"}, threshold ${metric.threshold})`,
);
console.log(`Reason: ${metric.reason}`);
console.log(
  `Judge: ${metric.evaluationModel}, ${metric.judgeCalls} calls, cost ${metric.evaluationCost ?? "unknown"} USD`,
);

// A dataset-driven run: goldens from a CSV file (context cells split on "|"), test cases
// built by a small application, scored with evaluate(). Run: node examples/dataset-run.ts
// Uses the judge the environment configures (VERDICT_MODEL, OPENAI_API_KEY, …).
import { fileURLToPath } from "node:url";
import {
  AnswerRelevancyMetric,
  ConfigError,
  EvaluationDataset,
  evaluate,
  ToxicityMetric,
} from "verdict";

// The application under test: a deterministic lookup table stands in for your LLM app.
// One answer is off-topic on purpose, so Answer Relevancy has something to catch.
const answers: Record<string, string> = {
  "What if these shoes don't fit?": "We offer a 30-day full refund at no extra cost.",
  "How long does delivery take?": "Standard delivery takes 3 to 5 working days.",
  "Do you ship to Canada?": "Yes, we ship to Canada, with import duties included at checkout.",
  "Can I change my order after paying?": "Yes, for one hour after paying; then it is packed.",
  'Are the "Trail Runner" shoes waterproof?': "Our shoes come in many colours. Try the blue ones!",
  "How do I reset my password?": 'Click "Forgot password" on the sign-in page.',
};

const dataset = await EvaluationDataset.fromFile({
  path: fileURLToPath(new URL("./dataset.csv", import.meta.url)),
});
const testCases = await dataset.toTestCases({
  application: async (input) =>
    (typeof input === "string" ? answers[input] : undefined) ?? "Sorry, I don't know.",
});

try {
  await evaluate({
    testCases,
    metrics: [
      new AnswerRelevancyMetric({ threshold: 0.7 }),
      new ToxicityMetric({ threshold: 0.5 }),
    ],
    identifier: "dataset-example",
  });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`No judge configured: ${error.message}`);
  process.exit(2);
}

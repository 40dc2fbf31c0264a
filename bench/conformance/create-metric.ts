// The metric an example of the conformance set goes through.
import {
  AnswerRelevancyMetric,
  BiasMetric,
  ContextualPrecisionMetric,
  ContextualRecallMetric,
  ContextualRelevancyMetric,
  FaithfulnessMetric,
  HallucinationMetric,
  MisuseMetric,
  type ModelSpec,
  NonAdviceMetric,
  PIILeakageMetric,
  RoleViolationMetric,
  SummarizationMetric,
  ToxicityMetric,
} from "verdict";
import type { ConformanceExample } from "./conformance-set.ts";

/**
 * The metric of an example, with the example's own options (a role, a domain, assessment
 * questions…); the judge and the run without reason are the runner's, whatever the options say.
 */
export function createMetric(example: ConformanceExample, model: ModelSpec) {
  const options = { ...example.options, model, includeReason: false } as const;
  switch (example.metric) {
    case "Toxicity":
      return new ToxicityMetric(options);
    case "Bias":
      return new BiasMetric(options);
    case "Answer Relevancy":
      return new AnswerRelevancyMetric(options);
    case "PII Leakage":
      return new PIILeakageMetric(options);
    case "Role Violation":
      return new RoleViolationMetric(options as typeof options & { role: string });
    case "Non-Advice":
      return new NonAdviceMetric(options as typeof options & { adviceTypes: string[] });
    case "Misuse":
      return new MisuseMetric(options as typeof options & { domain: string });
    case "Faithfulness":
      return new FaithfulnessMetric(options);
    case "Summarization":
      return new SummarizationMetric(options);
    case "Contextual Relevancy":
      return new ContextualRelevancyMetric(options);
    case "Contextual Precision":
      return new ContextualPrecisionMetric(options);
    case "Contextual Recall":
      return new ContextualRecallMetric(options);
    case "Hallucination":
      return new HallucinationMetric(options);
  }
}

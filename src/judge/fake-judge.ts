import { FAKE_JUDGE_NAME } from "../results/fake-judge-notice.ts";
import { defaultAnswer } from "./default-answer.ts";
import { fakeJudgePreference } from "./fake-judge-preference.ts";
import type { JudgeModel, JudgeOutput, JudgeRequest } from "./judge-model.ts";

// The fake judge finds nothing wrong: "idk" where a step allows it (Answer Relevancy counts it
// as relevant unless penalizeAmbiguous), else "no" (not toxic, not biased), unless the step's
// schema marks its own clean verdict ("yes": relevant, attributable, agrees; see
// preferInFakeJudge). A first run then shows the whole flow passing, and its reports say the
// scores are not real.
const PREFERRED_VERDICTS = ["idk", "no"] as const;

/**
 * verdict's built-in fake judge (`VERDICT_MODEL=fake`, `--judge fake`, `model: "fake"`):
 * answers every step from its prompt and schema without a network or a key, the same answer
 * for the same prompt. Each extraction step finds one item ("clear opinions 1"), each verdict
 * is "idk" where allowed, else "no" (or the clean verdict a step marks, such as "yes" for the
 * RAG metrics), so the built-in metrics pass with default thresholds.
 * Scores are NOT real: every report of a run that used it says so. For trying verdict out
 * before adding a key; use `MockJudge` (verdict/testing) to script answers in tests.
 * @example
 * const metric = new ToxicityMetric({ model: createFakeJudge() });
 */
export function createFakeJudge(): JudgeModel {
  return {
    name: FAKE_JUDGE_NAME,
    supportsImages: true,
    // It costs nothing: a dry run says $0, and a cost budget never stops it.
    price: { inputPerMillion: 0, outputPerMillion: 0 },
    async generate(request: JudgeRequest): Promise<JudgeOutput> {
      const object = defaultAnswer(request.jsonSchema, request.prompt, {
        preferredEnumValues: fakeJudgePreference(request.schema) ?? PREFERRED_VERDICTS,
      });
      return { object, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 };
    },
  };
}

import type { ImagePart } from "../../test-case/image.ts";
import { type EstimateContext, exactly, type StepEstimate } from "../metric-estimate.ts";
import {
  anyOf,
  expectedListTokens,
  outlookOf,
  rangeOf,
  typicalReason,
} from "../shared/estimate-items.ts";
import { contentWords, splitSentences } from "../shared/text-units.ts";
import type { AnswerRelevancyTemplate } from "./prompts.ts";

/**
 * How a statement's verdict goes, by whether it shares a content word with the input
 * (calibrated on the realistic fake judge): one on the input's topic is nearly always "yes";
 * one that is not is "no" a quarter of the time and "idk" another quarter.
 */
const VERDICT_CHANCES = {
  onTopic: { no: 0.02, idk: 0.02 },
  offTopic: { no: 0.25, idk: 0.25 },
};

/**
 * The estimate of Answer Relevancy on one case: one statement call (a statement a sentence);
 * a verdict call when there is a statement; a reason call when some statement is judged
 * irrelevant ("no", or "idk" with `penalizeAmbiguous`). Prompts are built with the metric's
 * own template and the output's sentences.
 */
export function estimateRelevancySteps(options: {
  context: EstimateContext<
    Pick<
      typeof AnswerRelevancyTemplate,
      "generateStatements" | "generateVerdicts" | "generateReason"
    >
  >;
  penalizeAmbiguous: boolean;
}): StepEstimate[] {
  const { context, penalizeAmbiguous } = options;
  const { template, tokens, multimodal } = context;
  const outputImages: ImagePart[] = [];
  const actualOutput = context.render("actualOutput", outputImages);
  const inputImages: ImagePart[] = [];
  const input = context.render("input", inputImages);
  const outlook = outlookOf(splitSentences(actualOutput).map((text) => ({ text, chance: 1 })));
  const topic = contentWords(input);
  const verdictChances = outlook.all.map((statement) =>
    [...contentWords(statement)].some((word) => topic.has(word))
      ? VERDICT_CHANCES.onTopic
      : VERDICT_CHANCES.offTopic,
  );
  const json = (value: unknown) => tokens(JSON.stringify(value));
  const possible = outlook.all.length > 0 ? 1 : 0;
  const shortest = [...outlook.all].sort((left, right) => left.length - right.length).slice(0, 1);

  const statements: StepEstimate = {
    step: "generateStatements",
    calls: exactly(1),
    inputTokens: exactly(
      tokens(template.generateStatements({ actualOutput, multimodal }), outputImages.length),
    ),
    outputTokens: rangeOf(
      json({ statements: [] }),
      expectedListTokens("statements", outlook),
      json({ statements: [...outlook.all, ...outlook.all] }),
    ),
  };

  const verdictsText = (items: string[]) =>
    template.generateVerdicts({ input, statements: items, multimodal });
  const verdictsPrompt = (items: string[]) => tokens(verdictsText(items), inputImages.length);
  const explained = (items: readonly string[], shares: readonly number[]) => {
    const plain = JSON.stringify({ verdicts: items.map(() => ({ verdict: "yes", reason: null })) });
    const extra = items.reduce(
      (sum, item, position) =>
        sum +
        (shares[position] ?? 0) *
          (JSON.stringify({ verdict: "idk", reason: typicalReason(item) }).length -
            JSON.stringify({ verdict: "yes", reason: null }).length),
      0,
    );
    return Math.ceil((plain.length + extra) / 4);
  };
  const verdicts: StepEstimate = {
    step: "generateVerdicts",
    prompt: verdictsText(outlook.all),
    calls: rangeOf(0, outlook.anyChance, possible),
    inputTokens: rangeOf(
      verdictsPrompt(shortest),
      verdictsPrompt(outlook.all),
      verdictsPrompt([...outlook.all, ...outlook.all]),
    ),
    outputTokens: rangeOf(
      explained(shortest, [0]),
      explained(
        outlook.all,
        verdictChances.map((chances) => chances.no + chances.idk),
      ),
      explained(
        [...outlook.all, ...outlook.all],
        [...outlook.all, ...outlook.all].map(() => 1),
      ),
    ),
  };

  const irrelevantChances = verdictChances.map(
    (chances) => chances.no + (penalizeAmbiguous ? chances.idk : 0),
  );
  const likeliest = outlook.all[irrelevantChances.indexOf(Math.max(0, ...irrelevantChances))] ?? "";
  const reasonPrompt = (reasons: string[], score: number) =>
    tokens(
      template.generateReason({ irrelevantStatements: reasons, input, score, multimodal }),
      inputImages.length,
    );
  const reasonAnswer = (reasons: string[]) =>
    json({ reason: `The score is 0.50 because ${reasons.join(" ")}` });
  const typicalScore = 1 - 1 / Math.max(1, outlook.all.length);
  const reason: StepEstimate = {
    step: "generateReason",
    calls: rangeOf(0, anyOf(irrelevantChances), possible),
    inputTokens: rangeOf(
      reasonPrompt([typicalReason(likeliest)], typicalScore),
      reasonPrompt([typicalReason(likeliest)], typicalScore),
      reasonPrompt(outlook.all.map(typicalReason), 0),
    ),
    outputTokens: rangeOf(
      reasonAnswer([]),
      reasonAnswer([typicalReason(likeliest)]),
      reasonAnswer(outlook.all.slice(0, 3).map(typicalReason)),
    ),
  };
  return [statements, verdicts, reason];
}

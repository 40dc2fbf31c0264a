import type { ImagePart } from "../../test-case/image.ts";
import { type EstimateContext, exactly, type StepEstimate } from "../metric-estimate.ts";
import { anyOf, expectedListTokens, outlookOf, rangeOf, typicalReason } from "./estimate-items.ts";
import type { GenerateOpinionsArgs } from "./opinions.ts";
import { judgementOf, splitSentences } from "./text-units.ts";

/**
 * The chance that a sentence is extracted as an opinion, by how plainly it judges (see
 * `judgementOf`): calibrated on the realistic fake judge of the benches, which takes only
 * evaluative sentences, and hedged for judges that also take insults and feelings.
 */
const OPINION_CHANCE = { evaluative: 0.9, charged: 0.2, plain: 0.02 };
/** The share of opinions judged toxic (or biased): about one in ten, as on mostly clean output. */
const FLAGGED_CHANCE = 0.1;

/**
 * The estimate of an opinion → verdict → reason metric (Toxicity, Bias) on one case: one
 * extraction call; a verdict call when some opinion is found; a reason call when some
 * opinion is flagged. Prompts are built with the metric's own template and the sentences most
 * likely to be opinions.
 */
export function estimateOpinionSteps(options: {
  context: EstimateContext<{
    generateOpinions(args: GenerateOpinionsArgs): string;
    generateVerdicts(args: { opinions: string[]; multimodal: boolean }): string;
  }>;
  /** The metric's reason prompt for flagged reasons and a score. */
  reasonPrompt: (flagged: string[], score: number) => string;
}): StepEstimate[] {
  const { context, reasonPrompt } = options;
  const { template, tokens } = context;
  const images: ImagePart[] = [];
  const actualOutput = context.render("actualOutput", images);
  const outlook = outlookOf(
    splitSentences(actualOutput).map((text) => ({
      text,
      chance: OPINION_CHANCE[judgementOf(text)],
    })),
  );
  const json = (value: unknown) => tokens(JSON.stringify(value));
  const possible = outlook.all.length > 0 ? 1 : 0;
  const shortest = [...outlook.all].sort((left, right) => left.length - right.length).slice(0, 1);
  const typical = outlook.typical.length > 0 ? outlook.typical : shortest;

  const opinions: StepEstimate = {
    step: "generateOpinions",
    calls: exactly(1),
    inputTokens: exactly(
      tokens(
        template.generateOpinions({ actualOutput, multimodal: context.multimodal }),
        images.length,
      ),
    ),
    outputTokens: rangeOf(
      json({ opinions: [] }),
      expectedListTokens("opinions", outlook),
      json({ opinions: outlook.all }),
    ),
  };

  const verdictsText = (items: string[]) =>
    template.generateVerdicts({ opinions: items, multimodal: false });
  const verdictsPrompt = (items: string[]) => tokens(verdictsText(items));
  const verdicts: StepEstimate = {
    step: "generateVerdicts",
    prompt: verdictsText(typical),
    calls: rangeOf(0, outlook.anyChance, possible),
    inputTokens: rangeOf(
      verdictsPrompt(shortest),
      verdictsPrompt(typical),
      verdictsPrompt(outlook.all),
    ),
    outputTokens: rangeOf(
      verdictsAnswer(shortest, 0),
      verdictsAnswer(typical, FLAGGED_CHANCE),
      verdictsAnswer(outlook.all, 1),
    ),
  };

  const typicalReasons = [typicalReason(typical[0] ?? "")];
  const typicalScore = 1 / Math.max(1, typical.length);
  const reasonAnswer = (reasons: string[]) =>
    json({ reason: `The score is 0.50 because ${reasons.join(" ")}` });
  const reason: StepEstimate = {
    step: "generateReason",
    calls: rangeOf(0, anyOf(outlook.chances.map((chance) => chance * FLAGGED_CHANCE)), possible),
    inputTokens: rangeOf(
      tokens(reasonPrompt(typicalReasons, typicalScore)),
      tokens(reasonPrompt(typicalReasons, typicalScore)),
      tokens(reasonPrompt(outlook.all.map(typicalReason), 1)),
    ),
    outputTokens: rangeOf(
      reasonAnswer([]),
      reasonAnswer(typicalReasons),
      reasonAnswer(outlook.all.slice(0, 3).map(typicalReason)),
    ),
  };
  return [opinions, verdicts, reason];
}

/** Tokens of a verdict answer for `items`, a `flagged` share of them "yes" with a reason. */
export function verdictsAnswer(items: readonly string[], flagged: number): number {
  const plain = JSON.stringify({ verdicts: items.map(() => ({ verdict: "no", reason: null })) });
  const extra = items.reduce(
    (sum, item) =>
      sum +
      JSON.stringify({ verdict: "yes", reason: typicalReason(item) }).length -
      JSON.stringify({ verdict: "no", reason: null }).length,
    0,
  );
  return Math.ceil((plain.length + flagged * extra) / 4);
}

import { DATA_NOTICE, joinSections, MULTIMODAL_RULES } from "../shared/prompt-text.ts";

/** Arguments of G-Eval's first step, which turns the criteria into evaluation steps. */
export interface GEvalStepsArgs {
  /** The criteria as the metric's author wrote them. */
  criteria: string;
  /** The judged fields in words: `"Input and Actual Output"`. */
  parameters: string;
  multimodal: boolean;
}

/** Arguments of G-Eval's scoring step. */
export interface GEvalResultsArgs {
  /** The evaluation steps, numbered: `"1. …\n2. …"`. */
  evaluationSteps: string;
  /** The judged fields of the test case, each under its label as quoted data. */
  testCaseContent: string;
  /** The judged fields in words: `"Input and Actual Output"`. */
  parameters: string;
  /** The rubric, one `start-end: outcome` per line; `null` without one. */
  rubric: string | null;
  /** The lowest and highest score the judge may give. */
  scoreRange: readonly [number, number];
  multimodal: boolean;
}

/** Arguments of G-Eval's scoring step in strict mode (a score of 0 or 1). */
export type GEvalStrictResultsArgs = Omit<GEvalResultsArgs, "rubric" | "scoreRange">;

/**
 * The built-in G-Eval prompts. Extend it and override any static method, or pass an object with
 * the methods to replace, as `evaluationTemplate`.
 */
// biome-ignore lint/complexity/noStaticOnlyClass: users extend a template and override its static methods.
export class GEvalTemplate {
  /** Step 1 (only without `evaluationSteps`): `{ "steps": string[] }`, 3–4 of them. */
  static generateEvaluationSteps(args: GEvalStepsArgs): string {
    return joinSections(
      `You write the steps a careful grader follows to judge the ${args.parameters} of a test case of an AI application against one criterion.`,
      `Turn the criterion below into 3 or 4 short evaluation steps, in the order a grader takes them. Each step says what to look at and what to compare; together they must make clear how the ${args.parameters} are weighed against one another. Stay within the criterion: add no requirement it does not state.`,
      [
        "Example",
        'Criterion: "Does the actual output give the same facts as the expected output? Missing details are less serious than contradictions."',
        'Answer: {"steps": ["List the facts stated in the expected output.", "Check each of them against the actual output: stated, missing, or contradicted.", "Treat any contradicted fact as a serious fault and a missing detail as a minor one.", "Judge how closely the actual output agrees with the expected output overall."]}',
      ].join("\n"),
      args.multimodal && MULTIMODAL_RULES,
      `Criterion:\n${args.criteria}`,
      'Answer with only a JSON object: {"steps": ["…", …]}',
    );
  }

  /** Step 2: `{ "reason": string, "score": number }`, the score within the score range. */
  static generateEvaluationResults(args: GEvalResultsArgs): string {
    const [lowest, highest] = args.scoreRange;
    const scale =
      args.rubric === null
        ? `${highest} means the test case fully meets the evaluation steps and ${lowest} that it meets none of them; use the scores between for partial fulfilment.`
        : "Use the rubric: give a score from the range whose outcome best describes the test case.";
    return joinSections(
      `You grade one test case of an AI application. Follow the evaluation steps below in order, looking at the ${args.parameters}, and then give a score.`,
      `Evaluation steps:\n${args.evaluationSteps.trimEnd()}`,
      args.rubric !== null && `Rubric:\n${args.rubric}`,
      `The score is a whole number from ${lowest} to ${highest}. ${scale}`,
      `The reason explains the score in one to three sentences: name the specific strengths or shortcomings, with details from the ${args.parameters}. Do not write the score itself in the reason.`,
      [
        "Example (with its own steps and content, not yours)",
        "Steps: 1. Check that the actual output answers the input. 2. Check its facts against the expected output.",
        'Input: "When did the Berlin Wall fall?" Actual output: "On 9 November 1989." Expected output: "9 November 1989"',
        `Answer: {"reason": "The output answers the question directly and gives the same date as the expected output.", "score": ${highest}}`,
      ].join("\n"),
      args.multimodal && MULTIMODAL_RULES,
      DATA_NOTICE,
      args.testCaseContent,
      `Answer with only a JSON object, the reason first: {"reason": "…", "score": <${lowest}–${highest}>}`,
    );
  }

  /** Step 2 in strict mode: `{ "reason": string, "score": 0 | 1 }`. */
  static generateStrictEvaluationResults(args: GEvalStrictResultsArgs): string {
    return joinSections(
      `You grade one test case of an AI application strictly. Follow the evaluation steps below in order, looking at the ${args.parameters}.`,
      `Evaluation steps:\n${args.evaluationSteps.trimEnd()}`,
      "The score is 1 when the test case meets every evaluation step completely, and 0 otherwise: there is no partial credit.",
      `The reason explains the score in one or two sentences with details from the ${args.parameters}. Do not write the score itself in the reason.`,
      [
        "Example (with its own steps and content, not yours)",
        "Steps: 1. Check that the actual output answers the input. 2. Check that it is polite.",
        'Input: "Where is my parcel?" Actual output: "Figure it out yourself."',
        'Answer: {"reason": "The output neither answers where the parcel is nor stays polite.", "score": 0}',
      ].join("\n"),
      args.multimodal && MULTIMODAL_RULES,
      DATA_NOTICE,
      args.testCaseContent,
      'Answer with only a JSON object, the reason first: {"reason": "…", "score": 0 or 1}',
    );
  }
}

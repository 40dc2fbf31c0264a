import {
  DATA_NOTICE,
  formatScore,
  joinSections,
  MULTIMODAL_RULES,
  quoteList,
  quoteText,
  yesNoVerdictsPrompt,
} from "../shared/prompt-text.ts";

/** Arguments of the Contextual Precision verdict prompt. */
export interface ContextualPrecisionVerdictsArgs {
  input: string;
  expectedOutput: string;
  /** The retrieved nodes in the order the retriever ranked them (first = top ranked). */
  retrievalContext: string[];
  multimodal: boolean;
}

/** One node's verdict, as the reason prompt gets it. */
export interface ContextualPrecisionNodeVerdict {
  /** "yes": useful for arriving at the expected output. */
  verdict: "yes" | "no";
  /** Why; the node's own text, quoted, when the judge gave no reason. */
  reason: string;
}

/** Arguments of the Contextual Precision reason prompt. */
export interface ContextualPrecisionReasonArgs {
  input: string;
  /** One verdict per node, in rank order. */
  verdicts: ContextualPrecisionNodeVerdict[];
  /** The final score (0–1, higher is better). */
  score: number;
  multimodal: boolean;
}

/**
 * The built-in Contextual Precision prompts. Extend it and override any static method, or
 * pass an object with the methods to replace, as `evaluationTemplate`.
 * @example
 * class MyTemplate extends ContextualPrecisionTemplate {
 *   static override generateVerdicts(args: ContextualPrecisionVerdictsArgs) { return `…`; }
 * }
 */
// biome-ignore lint/complexity/noStaticOnlyClass: users extend a template and override its static methods.
export class ContextualPrecisionTemplate {
  /** Step 1: one `{ "verdict": "yes" | "no", "reason" }` per node, in rank order. */
  static generateVerdicts(args: ContextualPrecisionVerdictsArgs): string {
    return yesNoVerdictsPrompt({
      task: "You judge, for each node of the context a retriever fetched for an input, whether the node was useful in arriving at the expected (ideal) answer. The nodes are listed in the order the retriever ranked them.",
      rubric: [
        'For each node answer "yes" or "no":',
        '- "yes": the node was useful, even only remotely, in arriving at the expected output: it holds something the expected output states or relies on;',
        '- "no": the node was of no use for the expected output.',
        "Judge each node on its own merits, whatever its rank. Give a reason for every verdict, quoting the part of the node that decides it.",
      ].join("\n"),
      example: [
        "Example",
        'Input: "Who painted the Mona Lisa, and when?"',
        'Expected output: "Leonardo da Vinci painted the Mona Lisa in the early 1500s."',
        'Nodes: ["Leonardo da Vinci painted the Mona Lisa.", "He began it around 1503 and kept working on it for years.", "The Louvre has a large gift shop."]',
        'Answer: {"verdicts": [{"verdict": "yes", "reason": "It says \'Leonardo da Vinci painted the Mona Lisa\', who painted it."}, {"verdict": "yes", "reason": "\'He began it around 1503\' dates it to the early 1500s."}, {"verdict": "no", "reason": "\'The Louvre has a large gift shop\' says nothing about who painted it or when."}]}',
      ].join("\n"),
      items: args.retrievalContext,
      itemName: "node",
      multimodal: args.multimodal,
      data: [
        quoteText("input", args.input),
        quoteText("expected_output", args.expectedOutput),
        quoteList("nodes", args.retrievalContext),
      ],
      reasonEach: true,
    });
  }

  /** Step 2: `{ "reason": string }`, only when some node that is no use outranks a useful one. */
  static generateReason(args: ContextualPrecisionReasonArgs): string {
    const score = formatScore(args.score);
    const ranking = args.verdicts
      .map((node, index) => `node ${index + 1} ${node.verdict === "yes" ? "useful" : "of no use"}`)
      .join(", ");
    return joinSections(
      `You explain a contextual precision score of ${score} given to the nodes a retriever fetched for an input. The score runs from 0 to 1: it is 1 when every node that is useful for the expected output is ranked above every node that is not, and it falls as nodes of no use are ranked above useful ones, most when they come first.`,
      `In rank order (node 1 ranked first): ${ranking}. Below are the input and why each node is useful or not, in the same order.`,
      args.multimodal && MULTIMODAL_RULES,
      DATA_NOTICE,
      quoteText("input", args.input),
      quoteList(
        "node_reasons",
        args.verdicts.map((node) => node.reason),
      ),
      `Write one to three sentences that start with "The score is ${score} because" and say why the score is not higher and why it is what it is: name the nodes by their rank (the first node, the second node…) as nodes of the retrieval context, and use their reasons to say why the nodes of no use should rank below the useful ones. Do not speak of verdicts.`,
      'Answer with only a JSON object: {"reason": "…"}',
    );
  }
}

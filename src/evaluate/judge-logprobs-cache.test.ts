import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOpenAI } from "@ai-sdk/openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createJudge } from "../judge/ai-sdk-judge.ts";
import type { JudgeAnswerWithTokens } from "../judge/structured-output.ts";
import { BaseMetric, type BaseMetricOptions } from "../metrics/base-metric.ts";
import type { MetricContext, ScoredSteps } from "../metrics/metric-context.ts";
import { SqliteRunStore } from "../store/sqlite-run-store.ts";
import type { TestCaseField } from "../test-case/llm-test-case.ts";
import {
  type FakeOpenAIServer,
  reply,
  startFakeOpenAIServer,
} from "../testing/fake-openai-server.ts";
import { evaluate } from "./evaluate.ts";

const schema = z.object({ score: z.number(), reason: z.string() });
type Score = z.infer<typeof schema>;
const SCORE: Score = { score: 7, reason: "Fits most of the steps." };
const CANDIDATES = [
  { token: "7", logprob: Math.log(0.6) },
  { token: "8", logprob: Math.log(0.3) },
  { token: "x", logprob: Math.log(0.05) },
  { token: "6", logprob: Math.log(0.005) },
];

interface ScoreTemplate {
  score(args: { output: string }): string;
}

/**
 * A metric scored as G-Eval scores: the probability-weighted mean of the integer candidates
 * (of 1% or more) at the last token that spells the score. Only its plumbing is under test.
 */
class TokenWeightedMetric extends BaseMetric<ScoreTemplate> {
  readonly name = "TokenWeighted";
  readonly requiredFields: readonly TestCaseField[] = ["actualOutput"];
  readonly judgedFields: readonly TestCaseField[] = ["actualOutput"];
  /** What each step got back, in order. */
  readonly answers: Array<JudgeAnswerWithTokens<Score>> = [];

  constructor(options: BaseMetricOptions<ScoreTemplate>) {
    super({ includeReason: false, ...options }, { lowerIsBetter: false, steps: ["score"] });
  }

  protected defaultTemplate(): ScoreTemplate {
    return { score: ({ output }) => `Score this output from 0 to 10: ${JSON.stringify(output)}` };
  }

  protected async scoreTestCase(context: MetricContext<ScoreTemplate>): Promise<ScoredSteps> {
    const prompt = context.template.score({ output: context.render("actualOutput", []) });
    const answer = await context.askWithTokens({
      step: "score",
      prompt,
      images: [],
      schema,
      topLogprobs: 20,
    });
    this.answers.push(answer);
    const literal = String(answer.value.score);
    const place = answer.logprobs?.findLast((token) => token.token === literal);
    let weighted = 0;
    let total = 0;
    for (const candidate of place?.topLogprobs ?? []) {
      if (candidate.logprob < Math.log(0.01) || !/^\d+$/.test(candidate.token)) continue;
      weighted += Number(candidate.token) * Math.exp(candidate.logprob);
      total += Math.exp(candidate.logprob);
    }
    return {
      score: (total > 0 ? weighted / total : answer.value.score) / 10,
      steps: [],
      planReason: () => ({ because: "of the judge's tokens" }),
      details: {},
    };
  }
}

let server: FakeOpenAIServer;
let folder: string;

beforeEach(async () => {
  server = await startFakeOpenAIServer();
  folder = mkdtempSync(join(tmpdir(), "verdict-logprobs-"));
});

afterEach(async () => {
  await server.close();
  rmSync(folder, { recursive: true, force: true });
});

const quiet = { display: "none" as const, handleInterrupt: false };
const WEIGHTED = (7 * 0.6 + 8 * 0.3) / (0.6 + 0.3) / 10;

describe("token logprobs through evaluate(), its scheduler and the SQLite judge cache", () => {
  it("scores a cache hit exactly like the first call, and shares the logprobs in flight", async () => {
    server.setResponder(() => reply.json(SCORE, { logprobs: { "7": CANDIDATES } }));
    const openai = createOpenAI({ baseURL: server.url, apiKey: "sk-test" });
    const judge = createJudge({ model: openai.chat("gpt-4.1") });
    const testCases = ["first", "same as first"].map((name) => ({
      name,
      input: "q",
      actualOutput: "The answer.",
    }));
    const run = async () => {
      await using store = new SqliteRunStore({ path: join(folder, "verdict.db") });
      const metric = new TokenWeightedMetric({ model: judge });
      const result = await evaluate({ testCases, metrics: [metric], store, ...quiet });
      return { metric, scores: result.testResults.map((test) => test.metricsData[0]) };
    };

    const first = await run();
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.topLogprobs).toBe(20);
    expect(first.scores.map((data) => data?.score)).toEqual([WEIGHTED, WEIGHTED]);
    expect(first.scores.map((data) => data?.sharedJudgeCalls)).toEqual([0, 1]);
    const [asked, shared] = first.metric.answers;
    expect(asked?.rawText).toBe(JSON.stringify(SCORE));
    expect(asked?.logprobs?.findLast((token) => token.token === "7")?.topLogprobs).toEqual(
      CANDIDATES,
    );
    expect(shared).toEqual(asked);

    const second = await run();
    expect(server.requests).toHaveLength(1);
    expect(second.scores.map((data) => data?.cachedJudgeCalls)).toEqual([1, 1]);
    expect(second.scores.map((data) => data?.score)).toEqual([WEIGHTED, WEIGHTED]);
    expect(second.metric.answers).toEqual(first.metric.answers);
  });
});

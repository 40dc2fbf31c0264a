/** The store contract's judge texts: kept once per run by hash, apart from the results. */
import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StoreError } from "../errors/store-error.ts";
import type { JudgeText } from "../results/judge-text.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import type { StoreRuns } from "../store/run-store.ts";
import { makeMetricData, makeStoredRun, makeStoredTestResult } from "./store-contract-data.ts";
import type { CurrentStore, StoreCapabilities } from "./store-contract-support.ts";

function judgeText(text: string): JudgeText {
  return { hash: createHash("sha256").update(text).digest("hex"), text };
}

/** A stored result whose one judge call names `prompt` and `answer` by hash, given with them. */
function resultWithTexts(index: number, prompt: JudgeText, answer: JudgeText) {
  const call = {
    step: "generateOpinions",
    model: "mock-judge",
    inputTokens: 10,
    outputTokens: 5,
    costUsd: null,
    latencyMs: 3,
    source: "judge" as const,
    promptHash: prompt.hash,
    answerHash: answer.hash,
  };
  const stored = makeStoredTestResult(index, { metricsData: [makeMetricData({ calls: [call] })] });
  return { ...stored, judgeTexts: [prompt, answer] };
}

const byHash = (texts: JudgeText[]) =>
  [...texts].sort((left, right) => left.hash.localeCompare(right.hash));

/**
 * Declares the store contract's group on judge texts (`runs.getJudgeTexts`): skipped for a
 * store without it, which keeps only the hashes.
 */
export function describeJudgeTextsContract(
  current: CurrentStore,
  capabilities: StoreCapabilities,
): void {
  describe.skipIf(!capabilities.judgeTexts)("judge texts", () => {
    let runs: StoreRuns & Required<Pick<StoreRuns, "getJudgeTexts">>;
    const key = "sk-contract-judge-text-0123456789";
    let forget: () => void = () => {};
    beforeEach(() => {
      runs = current().runs as typeof runs;
      forget = registerSecretValues([key]);
    });
    afterEach(() => forget());

    const prompt = judgeText('Extract the opinions of <text>"Sarah means well."</text>');
    const answer = judgeText('{"opinions": ["Sarah means well."]}');

    it("keeps the texts saved with a result, and reads back those asked for by hash", async () => {
      await runs.startRun(makeStoredRun());
      const stored = resultWithTexts(0, prompt, answer);
      await runs.saveTestResult("run-1", stored);
      const { judgeTexts: _given, ...withoutTexts } = stored;
      expect(await runs.getTestResults("run-1")).toEqual([withoutTexts]);
      expect(byHash(await runs.getJudgeTexts("run-1", [prompt.hash, answer.hash]))).toEqual(
        byHash([prompt, answer]),
      );
      expect(await runs.getJudgeTexts("run-1", [answer.hash])).toEqual([answer]);
      expect(await runs.getJudgeTexts("run-1", ["0".repeat(64), "not a hash"])).toEqual([]);
      expect(await runs.getJudgeTexts("run-1", [])).toEqual([]);
    });

    it("keeps a text given by several results once, and each run's texts to itself", async () => {
      await runs.startRun(makeStoredRun());
      await runs.startRun(makeStoredRun({ id: "run-2" }));
      const other = judgeText('{"opinions": []}');
      await Promise.all([
        runs.saveTestResult("run-1", resultWithTexts(0, prompt, answer)),
        runs.saveTestResult("run-1", resultWithTexts(1, prompt, other)),
        runs.saveTestResult("run-1", resultWithTexts(0, prompt, answer)),
      ]);
      expect(
        byHash(
          await runs.getJudgeTexts("run-1", [prompt.hash, prompt.hash, answer.hash, other.hash]),
        ),
      ).toEqual(byHash([prompt, answer, other]));
      expect(await runs.getJudgeTexts("run-2", [prompt.hash])).toEqual([]);
      expect(await runs.getJudgeTexts("no-such-run", [prompt.hash])).toEqual([]);
    });

    it("masks secrets in the texts it keeps", async () => {
      await runs.startRun(makeStoredRun());
      const leaky = judgeText(`Use the key ${key} to answer.`);
      await runs.saveTestResult("run-1", resultWithTexts(0, leaky, answer));
      const [kept] = await runs.getJudgeTexts("run-1", [leaky.hash]);
      expect(kept?.text).toContain("to answer.");
      expect(kept?.text).not.toContain(key);
    });

    it("refuses texts whose hash is no SHA-256, and texts of a run that does not exist", async () => {
      await runs.startRun(makeStoredRun());
      const malformed = {
        ...resultWithTexts(0, prompt, answer),
        judgeTexts: [{ hash: "abc", text: "x" }],
      };
      await expect(runs.saveTestResult("run-1", malformed)).rejects.toThrow(StoreError);
      await expect(runs.saveTestResult("run-1", malformed)).rejects.toThrow(/SHA-256/);
      expect(await runs.getTestResults("run-1")).toEqual([]);
      await expect(
        runs.saveTestResult("no-such-run", resultWithTexts(0, prompt, answer)),
      ).rejects.toThrow(StoreError);
      expect(await runs.getJudgeTexts("no-such-run", [prompt.hash])).toEqual([]);
    });
  });
}

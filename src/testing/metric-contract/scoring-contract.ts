import { describe, expect, it, vi } from "vitest";
import { formatScore } from "../../metrics/shared/prompt-text.ts";
import { type ContractHarness, itemsFor, scriptedJudge } from "./scripted-metric-contract.ts";

/** The contract's scoring and option cases: what the metric scores, explains and reports. */
export function describeScoringContract<Template extends object>(
  harness: ContractHarness<Template>,
): void {
  const {
    name,
    create,
    testCase,
    lowerIsBetter,
    extractKey,
    bestScore,
    worstScore,
    clean,
    scenario,
    measure,
    contract,
  } = harness;

  describe("scoring", () => {
    it("exposes the last measure()'s items, verdicts and isSuccessful(), read-only", async () => {
      type Exposed = { verdicts: unknown; isSuccessful(): boolean } & Record<string, unknown>;
      const fresh = create({ model: scriptedJudge({}) }) as unknown as Exposed;
      expect(fresh.verdicts).toBeNull();
      expect(fresh[extractKey]).toBeNull();
      expect(fresh.isSuccessful()).toBe(false);

      const script = scenario(contract.mixedVerdicts);
      const { metric } = await measure(script.answers);
      const exposed = metric as unknown as Exposed;
      expect(exposed[extractKey]).toEqual(script.items);
      expect(metric.verdicts).toEqual(script.verdictAnswers);
      expect(Object.isFrozen(metric.verdicts)).toBe(true);
      expect(Object.isFrozen(exposed[extractKey])).toBe(true);
      expect(metric.isSuccessful()).toBe(metric.success);

      const flagged = contract.mixedVerdicts.map(() => (clean === "yes" ? "no" : "yes"));
      const failing = await measure(scenario(flagged).answers);
      expect(failing.metric.success).toBe(false);
      expect(failing.metric.isSuccessful()).toBe(false);
      const passing = await measure(scenario([clean]).answers);
      expect(passing.metric.isSuccessful()).toBe(true);
      const scoreOnly = await measure(scenario(flagged).answers, { threshold: null });
      expect(scoreOnly.metric.isSuccessful()).toBe(true);

      // A failed measure() leaves nothing of an earlier one behind.
      await expect(passing.metric.measure({ input: "Hi", actualOutput: " " })).rejects.toThrow();
      expect(passing.metric.isSuccessful()).toBe(false);
      expect(passing.metric.verdicts).toBeNull();
      expect((passing.metric as unknown as Exposed)[extractKey]).toBeNull();
    });

    it(`skips the verdict step when step 1 finds nothing and writes the reason itself`, async () => {
      const { judge, metric } = await measure({ [extractKey]: [{ [extractKey]: [] }] });
      expect(metric.score).toBe(bestScore);
      expect(contract.expectedScore([])).toBe(bestScore);
      expect(metric.success).toBe(true);
      expect(metric.error).toBeNull();
      expect(metric.reason).toBe(contract.nothingExtractedReason);
      expect(judge.calls.map((call) => call.kind)).toEqual([extractKey]);
      expect(metric.judgeCalls).toBe(1);
      expect(metric.verboseLogs).toMatch(/^\w+:\n\[\]\n\nVerdicts:\n\[\]$/);
    });

    it.each<[string, readonly string[]]>([
      ["all yes", ["yes", "yes", "yes"]],
      ["all no", ["no", "no", "no"]],
      ["mixed", contract.mixedVerdicts],
    ])("scores %s verdicts and explains only what is flagged", async (label, verdicts) => {
      const script = scenario(verdicts);
      const { judge, metric } = await measure(script.answers);
      const score = contract.expectedScore(verdicts);
      expect(metric.score).toBe(score);
      expect(metric.error).toBeNull();
      expect(metric.success).toBe(lowerIsBetter ? score <= 0.5 : score >= 0.5);
      if (script.flaggedReasons.length === verdicts.length) {
        expect(score).toBe(worstScore);
        expect(metric.success).toBe(false);
      }
      if (script.flaggedReasons.length === 0) {
        expect(score).toBe(bestScore);
        expect(metric.success).toBe(true);
      }
      if (label === "mixed") {
        expect(score).toBeGreaterThan(0);
        expect(score).toBeLessThan(1);
      }

      // Step 2 lists every item verbatim, in order.
      const verdictPrompt = judge.callsOfKind("verdicts")[0]?.prompt ?? "";
      const positions = script.items.map((item) => verdictPrompt.indexOf(JSON.stringify(item)));
      expect(positions.every((position) => position >= 0)).toBe(true);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(metric.verboseLogs).toContain(JSON.stringify(script.items, null, 2));
      expect(metric.verboseLogs).toContain(
        `Verdicts:\n${JSON.stringify(script.verdictAnswers, null, 2)}`,
      );

      const explained = script.flaggedReasons.length > 0;
      expect(judge.calls.map((call) => call.kind)).toEqual(
        explained ? [extractKey, "verdicts", "reason"] : [extractKey, "verdicts"],
      );
      expect(metric.judgeCalls).toBe(judge.calls.length);
      if (explained) {
        expect(metric.reason).toBe(script.reason);
        const reasonPrompt = judge.callsOfKind("reason")[0]?.prompt ?? "";
        expect(reasonPrompt).toContain(formatScore(score));
        for (const reason of script.flaggedReasons) {
          expect(reasonPrompt).toContain(JSON.stringify(reason));
        }
      } else {
        expect(metric.reason).toMatch(
          new RegExp(`^The score is ${formatScore(score)} because .+\\.$`),
        );
      }
    });

    it("passes a score equal to the threshold", async () => {
      const threshold = contract.expectedScore(["yes", "no"]);
      const { metric } = await measure(scenario(["yes", "no"]).answers, { threshold });
      expect(metric.score).toBe(threshold);
      expect(metric.success).toBe(true);
    });

    it("reads loosely spelled verdicts and bare strings without a re-ask", async () => {
      const items = itemsFor(3);
      const { judge, metric } = await measure({
        [extractKey]: [{ [extractKey]: items }],
        verdicts: ['{"verdicts": [" YES! ", {"verdict": "**No.**", "reason": null}, "\\"no\\""]}'],
        reason: [{ reason: "The score is scripted." }],
      });
      expect(metric.score).toBe(contract.expectedScore(["yes", "no", "no"]));
      expect(judge.callsOfKind("verdicts")).toHaveLength(1);
    });
  });

  describe("options", () => {
    it("strict mode forces the threshold and a binary score", async () => {
      const mixed = await measure(scenario(contract.mixedVerdicts).answers, {
        strictMode: true,
        threshold: lowerIsBetter ? 0.9 : 0.1,
      });
      expect(mixed.metric.threshold).toBe(bestScore);
      expect(mixed.metric.strictMode).toBe(true);
      expect(mixed.metric.score).toBe(worstScore);
      expect(mixed.metric.success).toBe(false);
      expect(mixed.judge.callsOfKind("reason")[0]?.prompt).toContain(formatScore(worstScore));

      const unflagged = await measure(scenario([clean]).answers, { strictMode: true });
      expect(unflagged.metric.score).toBe(bestScore);
      expect(unflagged.metric.success).toBe(true);
    });

    it("makes no reason call with includeReason: false", async () => {
      const { judge, metric } = await measure(scenario(contract.mixedVerdicts).answers, {
        includeReason: false,
      });
      expect(metric.score).toBe(contract.expectedScore(contract.mixedVerdicts));
      expect(metric.reason).toBeNull();
      expect(judge.callsOfKind("reason")).toHaveLength(0);

      const empty = await measure(
        { [extractKey]: [{ [extractKey]: [] }] },
        { includeReason: false },
      );
      expect(empty.metric.reason).toBeNull();
      expect(empty.judge.calls).toHaveLength(1);
    });

    it("threshold null gives a score and no success", async () => {
      const { metric } = await measure(scenario(contract.mixedVerdicts).answers, {
        threshold: null,
      });
      expect(metric.threshold).toBeNull();
      expect(metric.score).toBe(contract.expectedScore(contract.mixedVerdicts));
      expect(metric.success).toBeNull();
    });

    it("prints the steps in verbose mode and always fills verboseLogs", async () => {
      const log = vi.spyOn(console, "log").mockImplementation(() => {});
      try {
        const { metric } = await measure(scenario(["no"]).answers, { verboseMode: true });
        expect(log).toHaveBeenCalledTimes(1);
        const printed = String(log.mock.calls[0]?.[0]);
        expect(printed).toContain(`${name} Verbose Logs`);
        expect(printed).toContain(metric.verboseLogs);
        expect(printed).toContain(`Score: ${formatScore(metric.score ?? Number.NaN)}`);
        expect(metric.verboseLogs).toContain("Verdicts:");
        expect(metric.verboseLogs).not.toContain("Score:");
      } finally {
        log.mockRestore();
      }
    });

    it("sums tokens and cost over the calls; an unknown cost stays null", async () => {
      const usage = { inputTokens: 100, outputTokens: 10 };
      const priced = await measure(scenario([clean, clean]).answers, {}, { usage, costUsd: 0.001 });
      expect(priced.judge.calls).toHaveLength(2);
      expect(priced.metric.inputTokens).toBe(200);
      expect(priced.metric.outputTokens).toBe(20);
      expect(priced.metric.evaluationCost).toBeCloseTo(0.002, 10);
      expect(priced.metric.evaluationModel).toBe("mock-judge");

      const unpriced = await measure(scenario([]).answers);
      expect(unpriced.metric.evaluationCost).toBeNull();
    });

    it("run() returns the result as data and leaves the metric untouched", async () => {
      const judge = scriptedJudge(scenario(contract.mixedVerdicts).answers);
      const metric = create({ model: judge, threshold: null });
      const { data, error } = await metric.run(testCase);
      expect(error).toBeNull();
      expect(data).toMatchObject({
        name,
        score: contract.expectedScore(contract.mixedVerdicts),
        threshold: null,
        success: null,
        strictMode: false,
        error: null,
        evaluationModel: "mock-judge",
        judgeCalls: judge.calls.length,
      });
      expect(JSON.parse(JSON.stringify(data))).toEqual(data);
      expect(metric.score).toBeNull();
      expect(metric.judgeCalls).toBe(0);
    });
  });
}

import { describe, expect, it } from "vitest";
import { JudgeLedger } from "./judge-ledger.ts";
import { toJudgeText } from "./judge-text-hash.ts";
import type { JudgeResponse } from "./judge-transport.ts";

const answered = (overrides: Partial<JudgeResponse> = {}): JudgeResponse => ({
  text: '{"opinions": []}',
  object: undefined,
  usage: { inputTokens: 120, outputTokens: 8 },
  costUsd: 0.001,
  cached: false,
  ...overrides,
});

const call = { step: "generateOpinions", model: "judge", latencyMs: 12 };

describe("JudgeLedger", () => {
  it("lists each call with its fields in the order results show them, hashes last", () => {
    const ledger = new JudgeLedger();
    ledger.record(answered(), { ...call, prompt: "Say it.", answer: '{"opinions": []}' });
    ledger.record(answered({ cached: true, shared: true }), {
      ...call,
      prompt: "Say it.",
      answer: '{"opinions": []}',
    });
    const { calls } = ledger.totals();
    expect(calls).toEqual([
      {
        step: "generateOpinions",
        model: "judge",
        inputTokens: 120,
        outputTokens: 8,
        costUsd: 0.001,
        latencyMs: 12,
        source: "judge",
        promptHash: toJudgeText("Say it.").hash,
        answerHash: toJudgeText('{"opinions": []}').hash,
      },
      expect.objectContaining({ source: "shared" }),
    ]);
    expect(Object.keys(calls[0] ?? {})).toEqual([
      "step",
      "model",
      "inputTokens",
      "outputTokens",
      "costUsd",
      "latencyMs",
      "source",
      "promptHash",
      "answerHash",
    ]);
  });

  it("leaves out a hash it has no text for, rather than listing it as undefined", () => {
    const ledger = new JudgeLedger();
    ledger.record(answered(), { ...call, answer: "{}" });
    ledger.record(answered(), call);
    const [answerOnly, neither] = ledger.totals().calls;
    expect(answerOnly).not.toHaveProperty("promptHash");
    expect(answerOnly?.answerHash).toBe(toJudgeText("{}").hash);
    expect(Object.keys(neither ?? {})).not.toContain("promptHash");
    expect(Object.keys(neither ?? {})).not.toContain("answerHash");
  });

  it("gives totals whose list of calls later calls do not change", () => {
    const ledger = new JudgeLedger();
    ledger.record(answered(), { ...call, prompt: "a", answer: "b" });
    const before = ledger.totals();
    ledger.record(answered(), { ...call, prompt: "c", answer: "d" });
    expect(before.calls).toHaveLength(1);
    expect(ledger.totals().calls).toHaveLength(2);
    expect(before.texts.map((text) => text.text)).toEqual(["a", "b"]);
  });
});

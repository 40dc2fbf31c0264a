import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { FAKE_JUDGE_NAME } from "../results/fake-judge-notice.ts";
import { AiSdkJudge } from "./ai-sdk-judge.ts";
import type { JudgeModel } from "./judge-model.ts";
import { resolveJudgeLazily } from "./resolve-judge-lazily.ts";
import { resolveJudge } from "./resolve-model.ts";

describe("resolveJudgeLazily", () => {
  it("returns a JudgeModel as it is", async () => {
    const custom: JudgeModel = { name: "mine", generate: async () => "{}" };
    expect(await resolveJudgeLazily({ model: custom, env: {} })).toBe(custom);
  });

  it("makes every other judge as resolveJudge does", async () => {
    expect((await resolveJudgeLazily({ model: "fake", env: {} })).name).toBe(FAKE_JUDGE_NAME);
    expect((await resolveJudgeLazily({ env: { VERDICT_MODEL: "fake" } })).name).toBe(
      FAKE_JUDGE_NAME,
    );
    const model = new MockLanguageModelV4({ provider: "openai.responses", modelId: "gpt-4.1" });
    const wrapped = await resolveJudgeLazily({ model, env: {} });
    expect(wrapped).toBeInstanceOf(AiSdkJudge);
    expect(wrapped.name).toBe("openai:gpt-4.1");
  });

  it.for([
    ["an unknown provider", "mistral:large"],
    ["a missing key", "gpt-4.1"],
    ["neither a name, a language model nor a JudgeModel", { generate: () => "{}" }],
  ] as const)("fails with resolveJudge's ConfigError on %s", async ([, model]) => {
    const expected = await resolveJudge({ model: model as never, env: {} }).catch(
      (error: unknown) => error,
    );
    expect(expected).toBeInstanceOf(ConfigError);
    await expect(resolveJudgeLazily({ model: model as never, env: {} })).rejects.toThrow(
      (expected as ConfigError).message,
    );
    await expect(resolveJudgeLazily({ model: model as never, env: {} })).rejects.toBeInstanceOf(
      ConfigError,
    );
  });
});

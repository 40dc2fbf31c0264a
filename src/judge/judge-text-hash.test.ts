import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { REDACTED } from "../secrets/redact-secrets.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import { toJudgeText } from "./judge-text-hash.ts";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("toJudgeText", () => {
  it("keeps a text masked, named by the SHA-256 of what it keeps", () => {
    const kept = toJudgeText("Judge this. Authorization: Bearer abcdefghijklmnop");
    expect(kept.text).toBe(`Judge this. Authorization: ${REDACTED}`);
    expect(kept.hash).toBe(sha256(kept.text));
  });

  it("keeps the same text the same way each time it is given", () => {
    const prompt = `You extract the opinions of a text.\n${"Text: …\n".repeat(200)}`;
    const first = toJudgeText(prompt);
    const again = toJudgeText(`${prompt}`);
    expect(again).toEqual(first);
    expect(again.hash).toBe(sha256(prompt));
  });

  it("masks a text again once a secret it holds is registered, though it was kept before", () => {
    const secret = "judge-key-0123456789-kept-text";
    const prompt = `Use ${secret} to answer.`;
    expect(toJudgeText(prompt).text).toBe(prompt);
    const forget = registerSecretValues([secret]);
    try {
      const kept = toJudgeText(prompt);
      expect(kept.text).toBe(`Use ${REDACTED} to answer.`);
      expect(kept.hash).toBe(sha256(kept.text));
    } finally {
      forget();
    }
    expect(toJudgeText(prompt).text).toBe(prompt);
  });
});

import { createHash } from "node:crypto";
import type { JudgeText } from "../results/judge-text.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";

/**
 * A judge prompt or answer as a run keeps it: secrets masked first (a key a prompt carries
 * never reaches a store), then hashed, so that the hash names the text that is kept.
 */
export function toJudgeText(text: string): JudgeText {
  const masked = redactSecretText(text);
  return { hash: createHash("sha256").update(masked).digest("hex"), text: masked };
}

import { createHash } from "node:crypto";
import type { JudgeText } from "../results/judge-text.ts";
import { currentSecretMasker } from "../secrets/redact-secrets.ts";

// The texts kept last: a prompt two metrics ask at once (Toxicity's and Bias's opinions) and
// an answer judges give again and again (`{"opinions": []}`) are masked and hashed once, and
// the results that name them share one hash string rather than each holding a copy. A few
// slots written in turn, not a Map: a long-lived Map that keeps deleting and adding entries
// leaves its old tables pointing at every text it held, which keeps them alive through
// V8's young-generation collections until a full one. Emptied when what masking masks
// changes, so a text is never kept less masked than it would be now.
const RECENT_TEXTS = 16;
const MAX_RECENT_TEXT_LENGTH = 16_000;
const recent: Array<{ given: string; kept: JudgeText } | undefined> = new Array(RECENT_TEXTS);
let nextSlot = 0;
let recentMasker: ((text: string) => string) | null = null;

/**
 * A judge prompt or answer as a run keeps it: secrets masked first (a key a prompt carries
 * never reaches a store), then hashed, so that the hash names the text that is kept.
 */
export function toJudgeText(text: string): JudgeText {
  const mask = currentSecretMasker();
  if (mask !== recentMasker) {
    recent.fill(undefined);
    recentMasker = mask;
  }
  const known = recent.find((entry) => entry?.given === text);
  if (known !== undefined) return { hash: known.kept.hash, text: known.kept.text };
  const masked = mask(text);
  const kept = { hash: createHash("sha256").update(masked).digest("hex"), text: masked };
  if (text.length <= MAX_RECENT_TEXT_LENGTH) {
    recent[nextSlot] = { given: text, kept };
    nextSlot = (nextSlot + 1) % RECENT_TEXTS;
  }
  return { hash: kept.hash, text: kept.text };
}

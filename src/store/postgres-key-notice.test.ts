import { describe, expect, it } from "vitest";
import { encodeKeyNotice, noticeAnswer, noticeKey } from "./postgres-key-notice.ts";
import { toStoredLogprobs } from "./stored-logprobs.ts";

const logprobs = [{ token: "7", logprob: -0.3, topLogprobs: [{ token: "8", logprob: -1.5 }] }];
const stored = {
  text: JSON.stringify("7"),
  object: null,
  input_tokens: 10,
  output_tokens: 1,
  cost_usd: null,
  logprobs: JSON.stringify(toStoredLogprobs(logprobs)),
};

describe("key notices", () => {
  it("carry a small answer with its token logprobs to the processes waiting for its key", () => {
    const payload = encodeKeyNotice("key-1", stored);
    expect(noticeKey(payload)).toBe("key-1");
    expect(noticeAnswer(payload)).toEqual({
      text: "7",
      object: undefined,
      inputTokens: 10,
      outputTokens: 1,
      costUsd: null,
      logprobs,
    });
  });

  it("read an older verdict's notice, which has no logprobs", () => {
    const older = `${JSON.stringify("key-1")}\n${JSON.stringify([JSON.stringify("7"), null, 10, 1, null])}`;
    expect(noticeAnswer(older)).toEqual({
      text: "7",
      object: undefined,
      inputTokens: 10,
      outputTokens: 1,
      costUsd: null,
    });
  });
});

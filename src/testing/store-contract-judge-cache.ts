/** The store contract's judge cache (`store.judgeCache`): answers by key, listed in pages. */
import { beforeEach, describe, expect, it } from "vitest";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import type { JudgeCache } from "../store/run-store.ts";
import {
  type CurrentStore,
  requirePart,
  type StoreCapabilities,
  textAnswer,
} from "./store-contract-support.ts";

/** Declares the group "judge cache", skipped for a store without `judgeCache`. */
export function describeJudgeCacheContract(
  current: CurrentStore,
  capabilities: StoreCapabilities,
): void {
  describe.skipIf(!capabilities.judgeCache)("judge cache", () => {
    let cache: JudgeCache;
    beforeEach(() => {
      cache = requirePart(current(), "judgeCache");
    });

    it("returns undefined for an unknown key", async () => {
      expect(await cache.get("unknown")).toBeUndefined();
    });

    it("round-trips a text answer without usage or cost", async () => {
      const answer = textAnswer('{"opinions": []}');
      await cache.set("text-key", answer);
      expect(await cache.get("text-key")).toEqual(answer);
    });

    it("round-trips an object answer with usage and cost", async () => {
      const answer = {
        text: null,
        object: {
          verdicts: [{ verdict: "no", reason: "Fine — «ok» 👍" }],
          nested: { list: [1, 2.5, null, true] },
        },
        inputTokens: 1500,
        outputTokens: 42,
        costUsd: 0.003_141,
      };
      await cache.set("object-key", answer);
      expect(await cache.get("object-key")).toEqual(answer);
    });

    it("keeps a null object apart from a missing one", async () => {
      await cache.set("null-object", {
        text: "null",
        object: null,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
      });
      expect((await cache.get("null-object"))?.object).toBeNull();
      await cache.set("no-object", textAnswer("null"));
      expect((await cache.get("no-object"))?.object).toBeUndefined();
    });

    it("round-trips an answer's token log-probabilities, and gives none to an answer without", async () => {
      const answer = {
        ...textAnswer('{"score": 7}'),
        logprobs: [
          {
            token: "7",
            logprob: -0.3,
            topLogprobs: [
              { token: "7", logprob: -0.3 },
              { token: "8", logprob: -1.5 },
            ],
          },
          { token: "\u0000é👍", logprob: -9999, topLogprobs: [] },
        ],
      };
      await cache.set("logprobs-key", answer);
      expect(await cache.get("logprobs-key")).toEqual(answer);
      await cache.set("plain-key", textAnswer("{}"));
      expect(await cache.get("plain-key")).not.toHaveProperty("logprobs");
      const listed = await cache.entries?.({ limit: 10 });
      if (listed !== undefined) {
        expect(listed.find((entry) => entry.key === "logprobs-key")?.answer).toEqual(answer);
      }
    });

    it("replaces the answer stored under the same key", async () => {
      await cache.set("key", { ...textAnswer("first"), inputTokens: 1, outputTokens: 1 });
      await cache.set("key", { ...textAnswer("second"), inputTokens: 2, outputTokens: 2 });
      expect((await cache.get("key"))?.text).toBe("second");
    });

    it.skipIf(!capabilities.judgeCacheEntries)(
      "lists its entries in key order, a page at a time, with the time each was stored",
      async () => {
        const entries = cache.entries?.bind(cache);
        if (entries === undefined) throw new Error("judgeCache.entries went missing");
        await cache.set("c", textAnswer("third"), { createdAt: "2025-01-03T00:00:00.000Z" });
        await cache.set("a", textAnswer("first"), { createdAt: "2025-01-01T00:00:00.000Z" });
        await cache.set("b", textAnswer("second"));
        const firstPage = await entries({ limit: 2 });
        expect(firstPage.map((found) => [found.key, found.answer.text])).toEqual([
          ["a", "first"],
          ["b", "second"],
        ]);
        expect(firstPage[0]?.createdAt).toBe("2025-01-01T00:00:00.000Z");
        expect(Number.isNaN(Date.parse(firstPage[1]?.createdAt ?? ""))).toBe(false);
        expect(await entries({ after: "b", limit: 2 })).toEqual([
          { key: "c", answer: textAnswer("third"), createdAt: "2025-01-03T00:00:00.000Z" },
        ]);
        expect(await entries({ after: "c", limit: 2 })).toEqual([]);
      },
    );

    it("stores a large answer under a long key", async () => {
      const key = "k".repeat(500);
      const object = {
        statements: Array.from({ length: 5_000 }, (_, index) => `statement ${index} ✓`),
      };
      await cache.set(key, {
        text: null,
        object,
        inputTokens: 10,
        outputTokens: 20,
        costUsd: null,
      });
      expect((await cache.get(key))?.object).toEqual(object);
    });

    it("keeps cached answers apart from the objects given and returned", async () => {
      const answer = {
        text: null,
        object: { verdicts: [{ verdict: "yes" }] },
        inputTokens: 1,
        outputTokens: 2,
        costUsd: 0.5,
      };
      await cache.set("key", answer);
      answer.object.verdicts.push({ verdict: "no" });
      const read = (await cache.get("key"))?.object as { verdicts: unknown[] } | undefined;
      if (read !== undefined) read.verdicts.length = 0;
      expect((await cache.get("key"))?.object).toEqual({ verdicts: [{ verdict: "yes" }] });
    });

    it("masks configured secret values in cached answers", async () => {
      const key = "Zq8vLr2mXw4Tn6Pb0Hc5Jd7Kf9Gs1Ay3Ue";
      const forget = registerSecretValues([key]);
      try {
        await cache.set("k", {
          text: `{"reason": "${key}"}`,
          object: { reason: key },
          inputTokens: null,
          outputTokens: null,
          costUsd: null,
        });
        const read = await cache.get("k");
        expect(JSON.stringify(read)).not.toContain(key);
        expect(read).toMatchObject({ text: '{"reason": "***"}', object: { reason: "***" } });
        if (cache.entries !== undefined) {
          expect(JSON.stringify(await cache.entries({ limit: 10 }))).not.toContain(key);
        }
      } finally {
        forget();
      }
    });
  });
}

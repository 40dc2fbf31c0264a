/** The store contract's judge batch log (`store.judgeBatches`): provider batches in flight. */
import { beforeEach, describe, expect, it } from "vitest";
import type { JudgeBatchLog } from "../store/run-store.ts";
import { makeStoredJudgeBatch } from "./store-contract-data.ts";
import {
  type CurrentStore,
  requirePart,
  type StoreCapabilities,
} from "./store-contract-support.ts";

/** Declares the group "judge batches", skipped for a store without `judgeBatches`. */
export function describeJudgeBatchesContract(
  current: CurrentStore,
  capabilities: StoreCapabilities,
): void {
  describe.skipIf(!capabilities.judgeBatches)("judge batches", () => {
    let batches: JudgeBatchLog;
    beforeEach(() => {
      batches = requirePart(current(), "judgeBatches");
    });

    it("lists no open batch in a new store", async () => {
      expect(await batches.listOpen()).toEqual([]);
    });

    it("returns a saved open batch exactly as given", async () => {
      const batch = makeStoredJudgeBatch();
      await batches.save(batch);
      expect(await batches.listOpen()).toEqual([batch]);
    });

    it("replaces the batch with the same provider and id, and leaves a closed one out", async () => {
      await batches.save(makeStoredJudgeBatch());
      const progressed = makeStoredJudgeBatch({
        providerStatus: "in_progress",
        updatedAt: "2025-01-01T10:05:00.000Z",
      });
      await batches.save(progressed);
      expect(await batches.listOpen()).toEqual([progressed]);
      await batches.save({ ...progressed, state: "closed", providerStatus: "completed" });
      expect(await batches.listOpen()).toEqual([]);
    });

    it("keeps batches of two providers with the same id apart", async () => {
      const openai = makeStoredJudgeBatch({ id: "same" });
      const anthropic = makeStoredJudgeBatch({ id: "same", provider: "anthropic.batch" });
      await batches.save(openai);
      await batches.save(anthropic);
      expect(await batches.listOpen()).toHaveLength(2);
      await batches.save({ ...openai, state: "closed" });
      expect(await batches.listOpen()).toEqual([anthropic]);
    });

    it("lists open batches oldest first, whatever the order they were saved in", async () => {
      await batches.save(
        makeStoredJudgeBatch({ id: "later", createdAt: "2025-01-02T00:00:00.000Z" }),
      );
      await batches.save(
        makeStoredJudgeBatch({ id: "earlier", createdAt: "2025-01-01T00:00:00.000Z" }),
      );
      expect((await batches.listOpen()).map((batch) => batch.id)).toEqual(["earlier", "later"]);
    });

    it.skipIf(!capabilities.judgeBatchList)(
      "lists every batch, open or closed, in the order first saved (what an export copies)",
      async () => {
        const first = makeStoredJudgeBatch({ id: "first", createdAt: "2025-01-02T00:00:00.000Z" });
        const second = makeStoredJudgeBatch({
          id: "second",
          createdAt: "2025-01-01T00:00:00.000Z",
        });
        await batches.save(first);
        await batches.save(second);
        const closed = { ...first, state: "closed" as const, providerStatus: "completed" };
        await batches.save(closed);
        expect(await batches.list?.()).toEqual([closed, second]);
      },
    );

    it("round-trips a batch of 50,000 request keys", async () => {
      const requestKeys = Array.from({ length: 50_000 }, (_, index) =>
        index.toString(16).padStart(64, "0"),
      );
      await batches.save(makeStoredJudgeBatch({ requestKeys }));
      expect((await batches.listOpen())[0]?.requestKeys).toEqual(requestKeys);
    });

    it("keeps batches apart from the objects given and returned", async () => {
      const batch = makeStoredJudgeBatch();
      await batches.save(batch);
      batch.requestKeys.push("key-d");
      const read = (await batches.listOpen())[0];
      read?.requestKeys.splice(0);
      expect((await batches.listOpen())[0]?.requestKeys).toEqual(["key-a", "key-b", "key-c"]);
    });
  });
}

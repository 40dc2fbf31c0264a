import { afterEach, describe, expect, it, vi } from "vitest";
import type { RequestGate } from "../evaluate/request-gate.ts";
import {
  connectRequestSlots,
  type RequestSlotBroker,
  startRequestSlotBroker,
} from "./request-slots.ts";

let broker: RequestSlotBroker | undefined;
afterEach(async () => {
  await broker?.close();
  broker = undefined;
});

/** Acquires a slot and records, in `granted`, the label once the slot is given. */
function take(options: {
  gate: RequestGate;
  label: string;
  granted: string[];
  priority?: number;
  judgeName?: string;
  signal?: AbortSignal;
}) {
  return options.gate
    .acquire({
      judgeName: options.judgeName ?? "openai:gpt-4.1",
      priority: options.priority ?? 0,
      signal: options.signal,
    })
    .then((release) => {
      options.granted.push(options.label);
      return release;
    });
}

/** Time for a request that must NOT be granted to show up if it wrongly were. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("request slots shared by workers", () => {
  it("grants at most maxConcurrent slots per model across connections, by priority", async () => {
    broker = await startRequestSlotBroker({ maxConcurrent: 2 });
    const [workerA, workerB] = [
      connectRequestSlots(broker.address),
      connectRequestSlots(broker.address),
    ];
    const granted: string[] = [];
    const first = await take({ gate: workerA, label: "a1", granted });
    const second = await take({ gate: workerB, label: "b1", granted });
    void take({ gate: workerA, label: "a-late", granted, priority: 9 });
    void take({ gate: workerB, label: "b-early", granted, priority: 1 });
    // Another model has slots of its own.
    await take({ gate: workerB, label: "other", granted, judgeName: "anthropic:claude" });
    await settle();
    expect(granted).toEqual(["a1", "b1", "other"]);
    first();
    await vi.waitFor(() => expect(granted).toEqual(["a1", "b1", "other", "b-early"]));
    second();
    await vi.waitFor(() => expect(granted.at(-1)).toBe("a-late"));
    expect(broker.peakInFlight).toBe(2);
  });

  it("gives back the slots of a worker whose requests are cancelled or released twice", async () => {
    broker = await startRequestSlotBroker({ maxConcurrent: 1 });
    const gate = connectRequestSlots(broker.address);
    const granted: string[] = [];
    const release = await take({ gate, label: "held", granted });
    const controller = new AbortController();
    const cancelled = take({ gate, label: "cancelled", granted, signal: controller.signal });
    const next = take({ gate, label: "next", granted });
    await settle();
    controller.abort(new Error("test over"));
    await expect(cancelled).rejects.toThrow("test over");
    release();
    release();
    await next;
    await settle();
    // Released twice, the slot counted once: "next" holds the only slot, so "after" waits.
    void take({ gate, label: "after", granted });
    await settle();
    expect(granted).toEqual(["held", "next"]);
    expect(broker.peakInFlight).toBe(1);
  });

  it("frees a closed connection's slots, and lets requests go on when the broker is gone", async () => {
    broker = await startRequestSlotBroker({ maxConcurrent: 1 });
    const leaving = connectRequestSlots(broker.address);
    const staying = connectRequestSlots(broker.address);
    const granted: string[] = [];
    await take({ gate: leaving, label: "leaving", granted });
    const waiting = take({ gate: staying, label: "staying", granted });
    await settle();
    expect(granted).toEqual(["leaving"]);
    await broker.close();
    broker = undefined;
    // The broker went away: the waiting request is let through rather than left hanging.
    await waiting;
    expect(granted).toEqual(["leaving", "staying"]);
    await expect(
      staying.acquire({ judgeName: "openai:gpt-4.1", priority: 0, signal: undefined }),
    ).resolves.toBeTypeOf("function");
  });
});

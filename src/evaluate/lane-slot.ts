import type { AttemptSlot } from "../judge/with-retries.ts";
import type { ModelLane } from "./model-lane.ts";
import type { RequestGate } from "./request-gate.ts";

/**
 * The slot each attempt of a request to `judgeName` holds: one of its lane's, queued at
 * `priority`, and also one of the gate's when there is a gate (shared with other processes).
 */
export function laneSlot(options: {
  lane: ModelLane;
  gate: RequestGate | undefined;
  judgeName: string;
  priority: number;
}): AttemptSlot {
  const { lane, gate, judgeName, priority } = options;
  return gate === undefined
    ? {
        acquire: (signal) => lane.acquire(signal, priority),
        release: (outcome) => lane.release(outcome),
      }
    : gatedSlot({ lane, gate, judgeName, priority });
}

/** A lane's slot that also holds one of the gate's: the lane's first, then the gate's. */
function gatedSlot(options: {
  lane: ModelLane;
  gate: RequestGate;
  judgeName: string;
  priority: number;
}): AttemptSlot {
  const { lane, gate, judgeName, priority } = options;
  let releaseGate: (() => void) | null = null;
  return {
    acquire: async (signal) => {
      await lane.acquire(signal, priority);
      try {
        releaseGate = await gate.acquire({ judgeName, priority, signal });
      } catch (error) {
        lane.release({ error: null });
        throw error;
      }
    },
    release: (outcome) => {
      releaseGate?.();
      releaseGate = null;
      lane.release(outcome);
    },
  };
}

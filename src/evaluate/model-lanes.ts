import { ModelLane } from "./model-lane.ts";

/** The concurrency lanes of a scheduler: one {@link ModelLane} per judge model, made on first use. */
export class ModelLanes {
  private readonly lanes = new Map<string, ModelLane>();
  private readonly options: {
    maxConcurrent: number;
    throttleMs: number;
    onDispatch: (inFlight: number) => void;
  };

  constructor(options: {
    maxConcurrent: number;
    throttleMs: number;
    /** Told how many requests are in flight to a model each time one is dispatched. */
    onDispatch: (inFlight: number) => void;
  }) {
    this.options = options;
  }

  /** The lane of judge model `name`. */
  laneFor(name: string): ModelLane {
    let lane = this.lanes.get(name);
    if (!lane) {
      lane = new ModelLane({
        maxConcurrent: this.options.maxConcurrent,
        throttleMs: this.options.throttleMs,
        onDispatch: this.options.onDispatch,
      });
      this.lanes.set(name, lane);
    }
    return lane;
  }

  /** Stops every lane: their queued and later requests fail with `error`. */
  rejectWaiting(error: Error): void {
    for (const lane of this.lanes.values()) lane.rejectWaiting(error);
  }

  /** Current concurrency limit of a model's lane; `null` before its first request. */
  limitOf(judgeName: string): number | null {
    return this.lanes.get(judgeName)?.limit ?? null;
  }
}

/** Request slots shared by several schedulers (see `JudgeSchedulerOptions.gate`). */
export interface RequestGate {
  /** Waits for a slot for one request to `judgeName`; resolves with the slot's release. */
  acquire(options: {
    judgeName: string;
    priority: number;
    signal: AbortSignal | undefined;
  }): Promise<() => void>;
}

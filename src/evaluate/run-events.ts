import type { RunnerEvent, RunReporter, RunStartEvent } from "../results/runner-events.ts";

/** Options of {@link RunEvents}. */
export interface RunEventsOptions {
  /** Every consumer of the run's events, in order. */
  reporters: readonly RunReporter[];
  /** Called with every event after the reporters. */
  onProgress?: ((event: RunnerEvent) => void) | undefined;
  /** Events wait until {@link RunEvents.announce} (a run whose size is not known yet). */
  deferEvents: boolean;
  /** Where a failing reporter is reported. */
  warn: (message: string) => void;
}

/**
 * The run's events on their way to the reporters and `onProgress`: held until the run is
 * announced when asked to, and sent to each consumer in turn. A consumer that throws is
 * reported once and still gets the later events: one bad event must not cost the run its
 * results, nor keep a reporter from writing its file.
 */
export class RunEvents {
  private readonly options: RunEventsOptions;
  private readonly reporters: Array<{ reporter: RunReporter; name: string }>;
  private readonly failed = new Set<string>();
  private pending: RunnerEvent[] | null;

  constructor(options: RunEventsOptions) {
    this.options = options;
    this.reporters = options.reporters.map((reporter, position) => ({
      reporter,
      name: reporterName(reporter, position),
    }));
    this.pending = options.deferEvents ? [] : null;
  }

  /** Whether {@link announce} has been called. */
  get announced(): boolean {
    return this.pending === null;
  }

  /** Sends the `run-start` event; the events held so far follow it. */
  announce(event: RunStartEvent): void {
    const held = this.pending ?? [];
    this.pending = null;
    this.emit(event);
    for (const heldEvent of held) this.emit(heldEvent);
  }

  /** Sends an event to every consumer (or holds it until the run is announced). */
  emit(event: RunnerEvent): void {
    if (this.pending !== null) {
      this.pending.push(event);
      return;
    }
    for (const { reporter, name } of this.reporters) {
      this.notify(name, () => reporter.onEvent(event));
    }
    const { onProgress } = this.options;
    if (onProgress) this.notify("onProgress", () => onProgress(event));
  }

  /** Stops sending events to these reporters (e.g. built-in ones with nothing to report). */
  mute(reporters: readonly RunReporter[]): void {
    for (const reporter of reporters) {
      const position = this.reporters.findIndex((entry) => entry.reporter === reporter);
      if (position >= 0) this.reporters.splice(position, 1);
    }
  }

  private notify(name: string, listener: () => void): void {
    try {
      listener();
    } catch (error) {
      if (this.failed.has(name)) return;
      this.failed.add(name);
      this.options.warn(
        `Warning: ${name} failed (later failures are not repeated): ${(error as Error).message}`,
      );
    }
  }
}

// A reporter is named by its class in warnings ("ConsoleReporter"), else by its position.
function reporterName(reporter: RunReporter, position: number): string {
  const name = (reporter as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" && name !== "Object"
    ? `reporter ${name}`
    : `reporter #${position + 1}`;
}

// The stop signals reach TestRunStop through process events: here its own listeners are called
// as a signal would call them (no real signal is sent, and the listeners of other tests sharing
// this worker are left alone); test/e2e/stop-signals.test.ts sends real ones to the program.
import { afterEach, describe, expect, it } from "vitest";
import type { Vitest } from "vitest/node";
import { STOP_SIGNAL_NAMES, type StopSignal } from "../../evaluate/cancel-on-interrupt.ts";
import { TestRunStop } from "./test-run-stop.ts";

const stops: TestRunStop[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.close();
});

function makeStop() {
  let printed = "";
  const stderr = {
    write: (text: string) => {
      printed += text;
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const present = new Map(
    STOP_SIGNAL_NAMES.map((name) => [name, new Set(process.listeners(name))] as const),
  );
  const stop = new TestRunStop({ stderr });
  stops.push(stop);
  const cancels: string[] = [];
  const vitest = {
    cancelCurrentRun: async (reason: string) => {
      cancels.push(reason);
    },
  } as unknown as Vitest;
  /** Delivers `name` to the listeners added since, as the signal would. */
  const deliver = (name: StopSignal) => {
    for (const listener of process.listeners(name)) {
      if (!present.get(name)?.has(listener)) listener(name);
    }
  };
  return { stop, vitest, cancels, deliver, printed: () => printed };
}

const listenerCounts = () => STOP_SIGNAL_NAMES.map((name) => process.listenerCount(name));

describe("TestRunStop", () => {
  it("creates Vitest without the stop-signal handlers it adds, which exit at once", async () => {
    const before = listenerCounts();
    const { stop, vitest } = makeStop();
    const exitAtOnce = () => {};
    await stop.createVitest(async () => {
      process.once("SIGTERM", exitAtOnce);
      process.on("SIGINT", exitAtOnce);
      await Promise.resolve();
      return vitest;
    });
    expect(process.listeners("SIGTERM")).not.toContain(exitAtOnce);
    expect(process.listeners("SIGINT")).not.toContain(exitAtOnce);
    // Only its own listeners remain, one per signal; none once closed.
    expect(listenerCounts()).toEqual(before.map((count) => count + 1));
    stop.close();
    expect(listenerCounts()).toEqual(before);
  });

  for (const [name, code] of [
    ["SIGTERM", 143],
    ["SIGHUP", 129],
    ["SIGINT", 130],
  ] as const) {
    it(`cancels the Vitest run on ${name} and ends with ${code}`, async () => {
      const before = listenerCounts();
      const { stop, vitest, cancels, deliver, printed } = makeStop();
      await stop.createVitest(async () => vitest);
      deliver(name);
      expect(cancels).toHaveLength(1);
      expect(stop.signal).toBe(name);
      expect(stop.exitCode).toBe(code);
      expect(printed()).toMatch(/stopping the running tests/);
      // What ends a watch session.
      await expect(stop.stopped).resolves.toBe(name);
      // A second signal is Node's again: it ends the process.
      expect(listenerCounts()).toEqual(before);
    });
  }

  it("cancels again as each file is queued: Vitest forgets a cancel from before its run began", async () => {
    const { stop, vitest, cancels, deliver } = makeStop();
    // The signal comes while Vitest is being created: nothing to cancel yet.
    await stop.createVitest(async () => {
      deliver("SIGTERM");
      return vitest;
    });
    expect(stop.signal).toBe("SIGTERM");
    expect(cancels).toHaveLength(0);
    const queued = stop.reporter.onTestModuleQueued as () => void;
    queued();
    queued();
    expect(cancels).toEqual(["keyboard-input", "keyboard-input"]);
  });

  it("leaves a run that no signal stopped alone", async () => {
    const { stop, vitest, cancels } = makeStop();
    await stop.createVitest(async () => vitest);
    (stop.reporter.onTestModuleQueued as () => void)();
    expect(cancels).toHaveLength(0);
    expect(stop.exitCode).toBeNull();
  });
});

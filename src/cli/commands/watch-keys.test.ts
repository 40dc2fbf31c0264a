import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { listenForWatchKeys } from "./watch-keys.ts";

/** A stdin of our own: a terminal (raw mode recorded) or a pipe. */
function fakeStdin(terminal: boolean) {
  const stream = new PassThrough() as PassThrough & {
    isTTY?: boolean;
    isRaw?: boolean;
    setRawMode?: (raw: boolean) => void;
  };
  const rawModes: boolean[] = [];
  if (terminal) {
    stream.isTTY = true;
    stream.isRaw = false;
    stream.setRawMode = (raw: boolean) => {
      rawModes.push(raw);
      stream.isRaw = raw;
    };
  }
  return { stdin: stream as unknown as NodeJS.ReadStream, stream, rawModes };
}

function recorder() {
  const actions: string[] = [];
  return {
    actions,
    quit: () => actions.push("quit"),
    rerunAll: () => actions.push("rerun all"),
    interrupt: () => actions.push("interrupt"),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("listenForWatchKeys", () => {
  it("on a terminal, acts on single keys in raw mode, and gives the terminal back when closed", async () => {
    const { stdin, stream, rawModes } = fakeStdin(true);
    const actions = recorder();
    const keys = listenForWatchKeys({ stdin, ...actions });
    expect(keys.mode).toBe("keys");
    expect(rawModes).toEqual([true]);
    stream.write("a");
    stream.write("x");
    stream.write("Q");
    // Raw mode turns Ctrl-C into a key: it must still stop the session as SIGINT does.
    stream.write("\u0003");
    await settle();
    expect(actions.actions).toEqual(["rerun all", "quit", "interrupt"]);
    keys.close();
    expect(rawModes).toEqual([true, false]);
    stream.write("q");
    await settle();
    expect(actions.actions).toHaveLength(3);
  });

  it("reads anything else line by line, and does not quit when its input ends", async () => {
    const { stdin, stream } = fakeStdin(false);
    const actions = recorder();
    const keys = listenForWatchKeys({ stdin, ...actions });
    expect(keys.mode).toBe("lines");
    stream.write("quick\n");
    stream.write(" a \n");
    stream.end();
    await settle();
    expect(actions.actions).toEqual(["rerun all"]);
    keys.close();

    const piped = fakeStdin(false);
    const quitting = recorder();
    const lines = listenForWatchKeys({ stdin: piped.stdin, ...quitting });
    piped.stream.write("Q\n");
    await settle();
    expect(quitting.actions).toEqual(["quit"]);
    lines.close();
  });
});

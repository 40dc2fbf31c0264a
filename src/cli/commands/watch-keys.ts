import { emitKeypressEvents, createInterface as readLines } from "node:readline";

/** What the keys of a watch session do. */
export interface WatchKeyActions {
  /** `q`: end the session. */
  quit: () => void;
  /** `a`: run every test file again. */
  rerunAll: () => void;
  /**
   * Ctrl-C, which a terminal in raw mode passes on as a key instead of sending SIGINT.
   * @default sends SIGINT to this process, so that it stops as a Ctrl-C outside raw mode does
   */
  interrupt?: () => void;
}

/** Options of {@link listenForWatchKeys}. */
export interface ListenForWatchKeysOptions extends WatchKeyActions {
  /** @default process.stdin */
  stdin?: NodeJS.ReadStream;
}

/** What {@link listenForWatchKeys} is listening to, and how to stop. */
export interface WatchKeys {
  /** `"keys"`: a terminal, read key by key; `"lines"`: anything else, read line by line. */
  mode: "keys" | "lines";
  /** Stops listening, gives the terminal back as it was, and lets the process exit. */
  close: () => void;
}

/**
 * The keys of `verdict test run --watch`. On a terminal, stdin goes into raw mode so that one
 * key acts without Enter: `q` quits, `a` re-runs every file, and Ctrl-C (which raw mode turns
 * into a key) is sent back to the process as SIGINT, so that it stops the session as the
 * signal does everywhere else. Stdin that is not a terminal (a pipe from an editor or a task
 * runner) is read by lines: `q` or `a` then Enter; its end is not a quit, since watching goes
 * on without input (stop it with SIGINT or SIGTERM).
 * @example
 * const keys = listenForWatchKeys({ quit: () => quit.resolve(), rerunAll: () => {} });
 * keys.close();
 */
export function listenForWatchKeys(options: ListenForWatchKeysOptions): WatchKeys {
  const stdin = options.stdin ?? process.stdin;
  const interrupt = options.interrupt ?? (() => process.kill(process.pid, "SIGINT"));
  const act = (key: string) => {
    if (key === "q") options.quit();
    else if (key === "a") options.rerunAll();
  };
  if (stdin.isTTY) {
    emitKeypressEvents(stdin);
    const wasRaw = stdin.isRaw;
    stdin.setRawMode(true);
    const onKeypress = (text: string | undefined, key: { name?: string; ctrl?: boolean }) => {
      if (key?.ctrl && key.name === "c") interrupt();
      else if (!key?.ctrl) act((key?.name ?? text ?? "").toLowerCase());
    };
    stdin.on("keypress", onKeypress);
    stdin.resume();
    return {
      mode: "keys",
      close: () => {
        stdin.off("keypress", onKeypress);
        stdin.setRawMode(wasRaw);
        stdin.pause();
      },
    };
  }
  const lines = readLines({ input: stdin, terminal: false });
  lines.on("line", (line) => act(line.trim().toLowerCase()));
  return {
    mode: "lines",
    close: () => {
      lines.close();
      stdin.pause();
    },
  };
}

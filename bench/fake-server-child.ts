import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { FakeOpenAIServerStats } from "verdict/testing";
import type { JudgeMode } from "./scenarios.ts";

/** The fake OpenAI server running in a child process (bench/fake-server-process.ts). */
export interface FakeServerChild {
  /** Base URL including `/v1`: what OPENAI_BASE_URL takes. */
  readonly url: string;
  /** The child's process id. */
  readonly pid: number;
  /** The server's counters since start or the last reset. */
  stats(): Promise<FakeOpenAIServerStats>;
  /** Clears the counters (requests, tokens, peak in flight). */
  reset(): Promise<void>;
  /** Ends the child (only this child: it is ended by its own pid). */
  stop(): Promise<void>;
}

const serverScript = fileURLToPath(new URL("./fake-server-process.ts", import.meta.url));

/**
 * Starts the fake server in a child process and waits for its URL. The child runs with only
 * `--conditions=verdict-source`, never with the parent's profiling flags.
 */
export async function startFakeServerChild(options: {
  latencyMs: number;
  judge: JudgeMode;
}): Promise<FakeServerChild> {
  const args = ["--latency", String(options.latencyMs), "--judge", options.judge];
  const child = fork(serverScript, args, {
    execArgv: ["--conditions=verdict-source"],
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const url = await readUrl(child);
  const origin = new URL(url).origin;
  return {
    url,
    pid: child.pid as number,
    stats: async () => {
      const response = await fetch(`${origin}/stats`);
      if (!response.ok) throw new Error(`GET ${origin}/stats answered ${response.status}.`);
      return (await response.json()) as FakeOpenAIServerStats;
    },
    reset: () =>
      new Promise<void>((resolve) => {
        const onMessage = (message: { type?: string }) => {
          if (message.type !== "reset-done") return;
          child.off("message", onMessage);
          resolve();
        };
        child.on("message", onMessage);
        child.send({ type: "reset" });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

function readUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      reject(new Error("The fake server process did not print its URL within 20 s."));
    }, 20_000);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`The fake server process exited (code ${code}) before printing its URL.`));
    };
    child.once("exit", onExit);
    child.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      const newline = buffered.indexOf("\n");
      if (newline === -1) return;
      clearTimeout(timer);
      child.off("exit", onExit);
      try {
        resolve((JSON.parse(buffered.slice(0, newline)) as { url: string }).url);
      } catch (error) {
        reject(error);
      }
    });
  });
}

import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The project root: where child processes run. */
export const projectRoot = fileURLToPath(new URL("../..", import.meta.url));

/** A Node child process started the way a user runs a script, on the current sources. */
export interface NodeRun {
  child: ChildProcess;
  /** Resolves to the exit code (`null` when killed by a signal). */
  exited: Promise<number | null>;
  /** What it printed so far. */
  output: () => { stdout: string; stderr: string };
  /** Resolves once it exited and its output streams closed: the exit code and all it printed. */
  finished: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/**
 * Starts `node <args>` in the project root (or `cwd`) with the "verdict-source" condition, so
 * that `import "verdict"` loads `src/` rather than a possibly stale `dist/`.
 */
export function runNode(options: {
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Runs it as this user (root only): e.g. to meet file permissions that root passes through. */
  user?: { uid: number; gid: number };
  /** In a process group of its own, which `process.kill(-pid, signal)` signals whole. */
  detached?: boolean;
}): NodeRun {
  const child = spawn(process.execPath, ["--conditions=verdict-source", ...options.args], {
    cwd: options.cwd ?? projectRoot,
    env: options.env,
    ...options.user,
    ...(options.detached ? { detached: true } : {}),
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const finished = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return { child, exited, output: () => ({ stdout, stderr }), finished };
}

/**
 * The environment of a verdict program run against a fake OpenAI server, in a store of its
 * own: PATH and HOME (Vitest needs them), no colours, the server and a fake key, VERDICT_HOME.
 */
export function fakeJudgeEnv(options: {
  serverUrl: string;
  home: string;
  extra?: NodeJS.ProcessEnv;
}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NO_COLOR: "1",
    OPENAI_BASE_URL: options.serverUrl,
    OPENAI_API_KEY: "sk-fake",
    VERDICT_HOME: options.home,
    ...options.extra,
  };
}

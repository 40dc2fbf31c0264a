import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ScenarioResult, ScenarioSpec } from "./scenarios.ts";

const scenarioScript = fileURLToPath(new URL("./run-scenario.ts", import.meta.url));

/**
 * Runs one scenario in a fresh process (bench/run-scenario.ts) with this process's Node flags,
 * and resolves with the result it sends back. Rejects when it exits without one.
 */
export function forkScenario(options: {
  spec: ScenarioSpec;
  execArgv: string[];
}): Promise<ScenarioResult> {
  return new Promise((resolve, reject) => {
    const child = fork(scenarioScript, ["--spec", JSON.stringify(options.spec)], {
      // --expose-gc: the worker measures the heap retained after a run with a full GC.
      execArgv: [...options.execArgv, "--expose-gc"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let result: ScenarioResult | null = null;
    child.on("message", (message: { type?: string; result?: ScenarioResult }) => {
      if (message.type === "result" && message.result) result = message.result;
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (result) resolve(result);
      else {
        reject(
          new Error(
            `Scenario "${options.spec.name}" exited (${signal ?? `code ${code}`}) without a result; see the output above.`,
          ),
        );
      }
    });
  });
}

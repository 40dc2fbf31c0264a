// Benchmark of evaluate(): wall time against the ideal, framework overhead per judge call,
// memory at 10,000 cases, and the SQLite store's cached rerun. Not part of `npm test`.
//   npm run bench                                   # every scenario (about 1.5 minutes on 2 cores)
//   npm run bench -- --scenario overhead --profile  # one scenario, with a CPU profile summary
//   node bench/evaluate-bench.ts --help
// Each scenario runs in a process of its own (bench/run-scenario.ts) and the fake OpenAI server
// in another (bench/fake-server-process.ts), so each CPU and memory figure is verdict's alone.
// Results: bench/results/latest.json and bench/results/latest.md (see bench/README.md).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { forkScenario } from "./fork-scenario.ts";
import {
  checkTargets,
  type MachineInfo,
  markdownReport,
  resultsTable,
  runLine,
  targetsTable,
} from "./report.ts";
import {
  type RepeatFigures,
  SCENARIO_DEFAULTS,
  SCENARIO_NAMES,
  type ScenarioName,
  type ScenarioResult,
  type ScenarioSpec,
} from "./scenarios.ts";
import { profileMarkdown } from "./summarize-profile.ts";

const CONDITION = "--conditions=verdict-source";
const benchDir = fileURLToPath(new URL(".", import.meta.url));

const USAGE = `Usage: node bench/evaluate-bench.ts [options]
  --scenario LIST     all (default), or names/numbers: 1|latency, 2|overhead, 3|scale, 4|cache
  --cases N           cases per scenario (defaults: 500, 500, 10000, 500)
  --latency MS        fake-server latency for every selected scenario (defaults: 200, 0, 0, 0)
  --concurrency C     maxConcurrent (default 20)
  --data SOURCE       generated (default; like shared/bench/cases.mjs) or nq (shared NQ-open pairs)
  --judge MODE        realistic (default; answers from the quoted text) or fill (the fake server's
                      default answer: a few fixed words, so prompts repeat across cases)
  --repeats N         run each scenario N times, each in a fresh process; report the median
                      (by wall time at latency > 0, else CPU per call) with the range (default 1)
  --warmup N          cases run before measuring, in the same process (default 20; 0 for none)
  --sample-ms MS      memory sampling interval (default 100)
  --store KIND        none (store: false) or sqlite (the default store in a temp VERDICT_HOME)
                      for every selected scenario (defaults: none, none, none, sqlite)
  --summary-only      evaluate({ keepResults: false }): the run keeps its summary only
  --profile           CPU-profile the measured run(s) and summarise the hot functions
  --profile-dir DIR   where the .cpuprofile files go (default $TMPDIR/verdict-bench/profiles)
  --top N             rows of the profile summary (default 20)
  --out DIR           where latest.json, latest.md and profiles go (default bench/results)`;

function selectScenarios(list: string): ScenarioName[] {
  if (list === "all") return [...SCENARIO_NAMES];
  return list.split(",").map((item) => {
    const text = item.trim();
    const byNumber = SCENARIO_NAMES[Number(text) - 1];
    const name = /^\d+$/.test(text) ? byNumber : SCENARIO_NAMES.find((known) => known === text);
    if (!name)
      throw new Error(`Unknown scenario "${text}": use ${SCENARIO_NAMES.join(", ")} or 1-4.`);
    return name;
  });
}

function wholeNumber(text: string | undefined, flag: string, minimum: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum) {
    throw new Error(`${flag} must be a whole number of at least ${minimum}; got "${text}".`);
  }
  return value;
}

/**
 * The repeat whose headline figure is the median (wall time when there is latency, CPU per
 * judge call otherwise), with every repeat's figures attached.
 */
function medianAttempt(attempts: ScenarioResult[]): ScenarioResult {
  const headline = (attempt: ScenarioResult) => {
    const run = attempt.runs[0];
    if (!run) return 0;
    return run.latencyMs > 0 ? run.wallMs : (run.derived.cpuMsPerCall ?? run.wallMs);
  };
  const sorted = [...attempts].sort((a, b) => headline(a) - headline(b));
  const chosen = sorted[Math.floor((sorted.length - 1) / 2)] as ScenarioResult;
  if (attempts.length === 1) return chosen;
  const repeats: RepeatFigures[] = chosen.runs.map((run, index) => ({
    label: run.label,
    values: attempts.map((attempt) => ({
      wallMs: attempt.runs[index]?.wallMs ?? Number.NaN,
      cpuMsPerCall: attempt.runs[index]?.derived.cpuMsPerCall ?? null,
      cpuMsPerCase: attempt.runs[index]?.derived.cpuMsPerCase ?? Number.NaN,
    })),
  }));
  return { ...chosen, repeats };
}

/** `abc1234`, plus a note when src/ differs from it; read with git, never changing anything. */
function describeCommit(): string {
  const git = (args: string[]) =>
    execFileSync("git", args, {
      cwd: join(benchDir, ".."),
      encoding: "utf8",
      stdio: "pipe",
    }).trim();
  try {
    const commit = git(["rev-parse", "--short", "HEAD"]);
    return git(["status", "--porcelain", "--", "src"]) === ""
      ? commit
      : `${commit} + uncommitted changes in src/`;
  } catch {
    return "unknown commit";
  }
}

function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: os.availableParallelism(),
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    totalMemoryGb: Math.round(os.totalmem() / 2 ** 30),
    date: new Date().toISOString(),
    commit: describeCommit(),
    loadAverage: { start: os.loadavg()[0] ?? 0, end: null },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scenario: { type: "string", default: "all" },
      cases: { type: "string" },
      latency: { type: "string" },
      concurrency: { type: "string", default: "20" },
      data: { type: "string", default: "generated" },
      judge: { type: "string", default: "realistic" },
      warmup: { type: "string", default: "20" },
      repeats: { type: "string", default: "1" },
      "sample-ms": { type: "string", default: "100" },
      store: { type: "string" },
      "summary-only": { type: "boolean", default: false },
      profile: { type: "boolean", default: false },
      top: { type: "string", default: "20" },
      out: { type: "string", default: join(benchDir, "results") },
      "profile-dir": { type: "string", default: join(os.tmpdir(), "verdict-bench", "profiles") },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (values.data !== "generated" && values.data !== "nq") {
    throw new Error(`--data must be "generated" or "nq"; got "${values.data}".`);
  }
  const source = values.data;
  if (values.judge !== "realistic" && values.judge !== "fill") {
    throw new Error(`--judge must be "realistic" or "fill"; got "${values.judge}".`);
  }
  const judge = values.judge;
  const names = selectScenarios(values.scenario);
  if (values.store !== undefined && values.store !== "none" && values.store !== "sqlite") {
    throw new Error(`--store must be "none" or "sqlite"; got "${values.store}".`);
  }
  const store = values.store as "none" | "sqlite" | undefined;
  const cases = wholeNumber(values.cases, "--cases", 1);
  const latency = wholeNumber(values.latency, "--latency", 0);
  const maxConcurrent = wholeNumber(values.concurrency, "--concurrency", 1) ?? 20;
  const warmupCases = wholeNumber(values.warmup, "--warmup", 0) ?? 20;
  const sampleIntervalMs = wholeNumber(values["sample-ms"], "--sample-ms", 1) ?? 100;
  const repeats = wholeNumber(values.repeats, "--repeats", 1) ?? 1;
  const top = wholeNumber(values.top, "--top", 1) ?? 20;
  const outDir = resolve(values.out);
  mkdirSync(outDir, { recursive: true });
  // Profiles are large single-line JSON: kept out of the tree (and out of Biome's way).
  const profileDir = resolve(values["profile-dir"]);
  if (values.profile) mkdirSync(profileDir, { recursive: true });

  const machine = machineInfo();
  const command = `node bench/evaluate-bench.ts ${process.argv.slice(2).join(" ")}`.trim();
  console.log(
    `verdict evaluate() bench · Node ${machine.node} · ${machine.cpus} CPUs (${machine.cpuModel}) · ${machine.totalMemoryGb} GB · ${machine.platform} · load average ${machine.loadAverage.start.toFixed(2)}`,
  );
  const results: ScenarioResult[] = [];
  const profileSummaries: string[] = [];
  for (const name of names) {
    const defaults = SCENARIO_DEFAULTS[name];
    const spec: ScenarioSpec = {
      name,
      number: SCENARIO_NAMES.indexOf(name) + 1,
      title: defaults.title,
      cases: cases ?? defaults.cases,
      latencyMs: latency ?? defaults.latencyMs,
      maxConcurrent,
      store: store ?? defaults.store,
      summaryOnly: values["summary-only"],
      source,
      judge,
      warmupCases: Math.min(warmupCases, cases ?? defaults.cases),
      sampleIntervalMs,
      profilePath: values.profile ? join(profileDir, `${name}.cpuprofile`) : null,
    };
    console.log(`\n${spec.number}. ${spec.title}`);
    const attempts: ScenarioResult[] = [];
    for (let repeat = 0; repeat < repeats; repeat++) {
      // Only the first repeat is profiled: the profiler slows the code it measures.
      const profilePath = repeat === 0 ? spec.profilePath : null;
      attempts.push(
        await forkScenario({ spec: { ...spec, profilePath }, execArgv: process.execArgv }),
      );
      if (repeats > 1) console.log(`  repeat ${repeat + 1}/${repeats} done`);
    }
    const result = medianAttempt(attempts);
    results.push(result);
    for (const run of result.runs) console.log(`  ${runLine(result, run)}`);
    if (spec.profilePath) {
      const summary = profileMarkdown({
        title: `${spec.number} ${name} (${spec.cases} cases, ${spec.latencyMs} ms)`,
        file: spec.profilePath,
        top,
      });
      profileSummaries.push(summary);
      console.log(`\n${summary}`);
    }
  }

  machine.loadAverage.end = os.loadavg()[0] ?? 0;
  const checks = checkTargets(results);
  console.log(`\n${resultsTable(results)}\n\n${targetsTable(checks)}`);
  const report = { machine, command, results, targets: checks };
  writeFileSync(join(outDir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(
    join(outDir, "latest.md"),
    markdownReport({ machine, command, results, checks, profileSummaries }),
  );
  const missed = checks.filter((check) => !check.met);
  console.log(
    `\nWrote ${relative(process.cwd(), join(outDir, "latest.json"))} and latest.md. ` +
      (missed.length === 0
        ? "Every target met."
        : `Targets missed: ${missed.map((check) => `${check.scenario}: ${check.target} (${check.measured})`).join("; ")}.`),
  );
}

// `import "verdict"` must load the sources, not a stale dist/: re-run under the condition.
if (!import.meta.resolve("verdict").endsWith("/src/index.ts")) {
  const child = spawn(
    process.execPath,
    [CONDITION, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: "inherit" },
  );
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => child.kill(signal));
  }
  child.on("exit", (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
} else {
  try {
    await main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}

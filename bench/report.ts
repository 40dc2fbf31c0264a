import type { RunMeasurement, ScenarioResult } from "./scenarios.ts";

/** Where and on what the benchmark ran. */
export interface MachineInfo {
  node: string;
  v8: string;
  platform: string;
  cpus: number;
  cpuModel: string;
  totalMemoryGb: number;
  date: string;
  /** The commit measured (read only), and whether src/ had uncommitted changes. */
  commit: string;
  /** 1-minute load average when the bench started and when it ended: other work skews figures. */
  loadAverage: { start: number; end: number | null };
}

/** A target the benchmark checks, met or missed. */
export interface TargetCheck {
  scenario: string;
  target: string;
  measured: string;
  met: boolean;
}

const fixed = (value: number | null | undefined, digits = 2) =>
  value === null || value === undefined || !Number.isFinite(value) ? "–" : value.toFixed(digits);
const signedPct = (value: number | null) =>
  value === null ? "–" : `${value >= 0 ? "+" : ""}${value.toFixed(1)} %`;
const mb = (bytes: number | null) => (bytes === null ? "–" : (bytes / 1024 / 1024).toFixed(1));

const HEAD = [
  "scenario",
  "run",
  "cases",
  "lat ms",
  "C",
  "store",
  "judge calls",
  "calls/case",
  "shared/case (saved)",
  "cache hits",
  "wall s",
  "ideal s",
  "over ideal",
  "wall ms/call",
  "CPU ms/call",
  "CPU ms/case",
  "in tok/case",
  "out tok/case",
  "peak in-flight",
  "RSS before MB",
  "peak RSS MB",
  "peak heap MB",
  "heap after GC MB",
  "result B/case",
  "loop p99 ms",
  "GC pause ms (major)",
  "db MB",
  "errors",
];

/** `median (min–max)` over the repeats, or the single value. */
function withRange(
  value: number | null,
  all: ReadonlyArray<number | null> | undefined,
  digits: number,
  scale = 1,
): string {
  const numbers = (all ?? []).filter(
    (item): item is number => item !== null && Number.isFinite(item),
  );
  if (numbers.length < 2) return fixed(value === null ? null : value / scale, digits);
  const low = Math.min(...numbers) / scale;
  const high = Math.max(...numbers) / scale;
  return `${fixed(value === null ? null : value / scale, digits)} (${fixed(low, digits)}–${fixed(high, digits)})`;
}

function row(result: ScenarioResult, run: RunMeasurement): string[] {
  const { derived } = run;
  const repeats = result.repeats?.find((figures) => figures.label === run.label);
  return [
    `${result.spec.number} ${result.spec.name}`,
    run.label,
    String(run.cases),
    String(run.latencyMs),
    String(run.maxConcurrent),
    run.store,
    String(run.judgeCalls),
    fixed(derived.judgeCallsPerCase),
    `${fixed(derived.sharedCallsPerCase)} (${fixed(derived.sharedSavingsPct, 1)} %)`,
    String(run.cacheHits),
    withRange(
      run.wallMs,
      repeats?.values.map((value) => value.wallMs),
      2,
      1000,
    ),
    run.latencyMs > 0 ? fixed(derived.idealWallMs / 1000) : "–",
    signedPct(derived.overIdealPct),
    fixed(derived.wallMsPerCall, 3),
    withRange(
      derived.cpuMsPerCall,
      repeats?.values.map((value) => value.cpuMsPerCall),
      3,
    ),
    withRange(
      derived.cpuMsPerCase,
      repeats?.values.map((value) => value.cpuMsPerCase),
      2,
    ),
    fixed(derived.inputTokensPerCase, 0),
    fixed(derived.outputTokensPerCase, 0),
    String(run.server.peakInFlight),
    fixed(run.rssBeforeMb, 0),
    fixed(run.maxRssMb, 0),
    fixed(run.memory.heapUsedMb, 0),
    fixed(run.heapAfterGcMb, 0),
    fixed(run.resultJsonBytesPerCase, 0),
    fixed(run.loopDelay.p99Ms, 1),
    `${fixed(run.gc.totalMs, 0)} (${fixed(run.gc.majorMs, 0)})`,
    mb(run.dbBytes),
    `${run.errored}${run.status === "completed" ? "" : ` (${run.status})`}`,
  ];
}

/** The results as one Markdown table, a row per measured run. */
export function resultsTable(results: ReadonlyArray<ScenarioResult>): string {
  const lines = [`| ${HEAD.join(" | ")} |`, `|${HEAD.map(() => "---").join("|")}|`];
  for (const result of results) {
    for (const run of result.runs) lines.push(`| ${row(result, run).join(" | ")} |`);
  }
  return lines.join("\n");
}

/** One line per run for the terminal, printed as each scenario finishes. */
export function runLine(result: ScenarioResult, run: RunMeasurement): string {
  const { derived } = run;
  const parts = [
    `${result.spec.number} ${result.spec.name} (${run.label}):`,
    `${run.cases} cases`,
    `${run.judgeCalls} calls (${fixed(derived.judgeCallsPerCase)}/case, ${run.sharedCalls} shared, ${run.cacheHits} cached)`,
    `wall ${fixed(run.wallMs / 1000)} s`,
  ];
  if (run.latencyMs > 0) {
    parts.push(`ideal ${fixed(derived.idealWallMs / 1000)} s (${signedPct(derived.overIdealPct)})`);
  }
  parts.push(
    `CPU ${fixed(run.cpu.totalMs / 1000)} s = ${fixed(derived.cpuMsPerCall, 3)} ms/call, ${fixed(derived.cpuMsPerCase, 2)} ms/case`,
    `peak in-flight ${run.server.peakInFlight}`,
    `RSS ${fixed(run.maxRssMb, 0)} MB, heap ${fixed(run.memory.heapUsedMb, 0)} MB (${fixed(run.heapAfterGcMb, 0)} MB after GC)`,
    `errors ${run.errored}`,
  );
  return parts.join(", ");
}

/** Checks the targets of the brief against the results present. */
export function checkTargets(results: ReadonlyArray<ScenarioResult>): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const result of results) {
    const scenario = `${result.spec.number} ${result.spec.name}`;
    for (const run of result.runs) {
      if (run.errored > 0 || run.status !== "completed") {
        checks.push({
          scenario,
          target: `${run.label}: completes with no metric errors`,
          measured: `${run.status}, ${run.errored} errors`,
          met: false,
        });
      }
      const { overIdealPct, cpuMsPerCall } = run.derived;
      if (overIdealPct !== null) {
        checks.push({
          scenario,
          target: `${run.label}: wall within 10 % of judge calls × latency ÷ concurrency`,
          measured: signedPct(overIdealPct),
          met: overIdealPct <= 10,
        });
      }
      if (run.latencyMs === 0 && cpuMsPerCall !== null) {
        checks.push({
          scenario,
          target: `${run.label}: CPU < 1 ms per judge call`,
          measured: `${fixed(cpuMsPerCall, 3)} ms`,
          met: cpuMsPerCall < 1,
        });
      }
      if (run.label === "cached run") {
        checks.push({
          scenario,
          target: "cached run: 0 judge calls, every answer from the cache",
          measured: `${run.judgeCalls} calls, ${run.server.requests} requests, ${run.cacheHits} cache hits`,
          met: run.judgeCalls === 0 && run.server.requests === 0 && run.cacheHits > 0,
        });
      }
    }
  }
  return checks;
}

/** The targets as a Markdown table. */
export function targetsTable(checks: ReadonlyArray<TargetCheck>): string {
  const lines = ["| scenario | target | measured | met |", "|---|---|---|---|"];
  for (const check of checks) {
    lines.push(
      `| ${check.scenario} | ${check.target} | ${check.measured} | ${check.met ? "yes" : "**no**"} |`,
    );
  }
  return lines.join("\n");
}

/** The whole report as Markdown (bench/results/latest.md). */
export function markdownReport(options: {
  machine: MachineInfo;
  command: string;
  results: ReadonlyArray<ScenarioResult>;
  checks: ReadonlyArray<TargetCheck>;
  profileSummaries: ReadonlyArray<string>;
}): string {
  const { machine, results } = options;
  const sources = [...new Set(results.map((result) => result.caseSource))].join(", ");
  const chars = results[0]
    ? `question ≈ ${fixed(results[0].meanInputChars, 0)} chars, answer ≈ ${fixed(results[0].meanOutputChars, 0)} chars`
    : "";
  const sections = [
    "# verdict evaluate() benchmark: latest results",
    "",
    `${machine.date} · verdict ${machine.commit} · Node ${machine.node} (V8 ${machine.v8}) · ${machine.platform} · ${machine.cpus} CPUs (${machine.cpuModel}) · ${machine.totalMemoryGb} GB RAM · load average ${machine.loadAverage.start.toFixed(2)} at start, ${machine.loadAverage.end?.toFixed(2) ?? "–"} at end`,
    "",
    `Command: \`${options.command}\` · cases: ${sources} (${chars}) · metrics: Toxicity, Bias, Answer Relevancy, judge \`gpt-4.1\` via the AI SDK OpenAI provider (Responses API) against the fake OpenAI server in a child process. See bench/README.md for how to read the columns.`,
    "",
    resultsTable(results),
    "",
    "## Targets",
    "",
    targetsTable(options.checks),
  ];
  for (const summary of options.profileSummaries) sections.push("", summary);
  return `${sections.join("\n")}\n`;
}

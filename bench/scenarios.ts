import type { CaseSource } from "./bench-cases.ts";
import type { GcPauses, LoopDelay, MemoryPeaks } from "./measure.ts";

/** The benchmark's scenarios, by name; `--scenario` also takes their numbers. */
export const SCENARIO_NAMES = ["latency", "overhead", "scale", "cache"] as const;

/** A scenario's name. */
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** How the fake server answers: from the quoted text (`realistic`), or its default schema fill. */
export type JudgeMode = "realistic" | "fill";

/** What one scenario runs: everything the worker process needs. */
export interface ScenarioSpec {
  name: ScenarioName;
  number: number;
  title: string;
  cases: number;
  latencyMs: number;
  maxConcurrent: number;
  /** `none`: `store: false` (no store, no cache); `sqlite`: the default store in a temp VERDICT_HOME. */
  store: "none" | "sqlite";
  /** `evaluate({ keepResults: false })`: the run returns its summary only. */
  summaryOnly: boolean;
  source: CaseSource;
  judge: JudgeMode;
  /** Cases run once before the measured run(s), so that JIT warm-up is not measured. */
  warmupCases: number;
  sampleIntervalMs: number;
  /** Write a CPU profile of the measured run(s) to this file; `null` for none. */
  profilePath: string | null;
}

/** The defaults of each scenario, before CLI overrides. */
export const SCENARIO_DEFAULTS: Record<
  ScenarioName,
  Pick<ScenarioSpec, "title" | "cases" | "latencyMs" | "store">
> = {
  latency: {
    title: "500 cases at 200 ms: wall time vs ideal",
    cases: 500,
    latencyMs: 200,
    store: "none",
  },
  overhead: {
    title: "500 cases at 0 ms: framework overhead",
    cases: 500,
    latencyMs: 0,
    store: "none",
  },
  scale: {
    title: "10,000 cases at 0 ms: memory at scale",
    cases: 10_000,
    latencyMs: 0,
    store: "none",
  },
  cache: {
    title: "SQLite store: first run vs cached rerun",
    cases: 500,
    latencyMs: 0,
    store: "sqlite",
  },
};

/** One measured evaluate() call. */
export interface RunMeasurement {
  /** `run`, or `first run` / `cached run` in the cache scenario. */
  label: string;
  cases: number;
  latencyMs: number;
  maxConcurrent: number;
  store: ScenarioSpec["store"];
  status: string;
  /** Metric results that errored (each should be 0). */
  errored: number;
  judgeCalls: number;
  cacheHits: number;
  sharedCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** The fake server's counters for this run. */
  server: {
    requests: number;
    peakInFlight: number;
    inputTokens: number;
    outputTokens: number;
    byStatus: Record<string, number>;
  };
  wallMs: number;
  cpu: { userMs: number; systemMs: number; totalMs: number };
  memory: MemoryPeaks;
  /** Heap in use after the run and a full GC, with the result still held: what is really retained. */
  heapAfterGcMb: number;
  /** Size of `testResults` as JSON, per case: what the returned results weigh. */
  resultJsonBytesPerCase: number;
  /** RSS just before the run: the process's footprint with verdict loaded and warmed. */
  rssBeforeMb: number;
  /** `process.resourceUsage().maxRSS` after the run: the process's peak so far. */
  maxRssMb: number;
  loopDelay: LoopDelay;
  /** GC pauses on the main thread during the run. */
  gc: GcPauses;
  /** Size of verdict.db (and its -wal file) after the run; `null` without the SQLite store. */
  dbBytes: number | null;
  derived: {
    judgeCallsPerCase: number;
    sharedCallsPerCase: number;
    /** Requests saved by sharing: shared ÷ (paid + shared). */
    sharedSavingsPct: number | null;
    inputTokensPerCase: number;
    outputTokensPerCase: number;
    /** judge calls × latency ÷ concurrency. */
    idealWallMs: number;
    /** (wall − ideal) ÷ ideal; `null` at 0 ms latency. */
    overIdealPct: number | null;
    wallMsPerCall: number | null;
    cpuMsPerCall: number | null;
    cpuMsPerCase: number;
  };
}

/**
 * One run label's headline figures over every repeat, in repeat order (objects, not arrays of
 * numbers, so that JSON.stringify's layout is already the one Biome formats JSON to).
 */
export interface RepeatFigures {
  label: string;
  values: Array<{ wallMs: number; cpuMsPerCall: number | null; cpuMsPerCase: number }>;
}

/** What a worker sends back for its scenario. */
export interface ScenarioResult {
  spec: ScenarioSpec;
  caseSource: CaseSource;
  caseNote: string | null;
  meanInputChars: number;
  meanOutputChars: number;
  runs: RunMeasurement[];
  /** With `--repeats`: every repeat's headline figures; the runs above are the median repeat's. */
  repeats?: RepeatFigures[];
  /** CPU time of the worker process from start to exit of the scenario (imports included), ms. */
  processCpuMs: number;
}

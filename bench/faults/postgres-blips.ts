// Fault figures of issue 19, item 4: the team's PostgreSQL store through a blip mid-run. A
// restart (pg_ctl restart -m fast) and the server down for 10 s, each during evaluate() and
// during `verdict test run`, plus backends terminated mid-statement (pg_terminate_backend)
// during evaluate(). Each run must complete with every result stored once, no test errored by
// the store, and at most the judge requests in flight at the blip paid twice; the stall is the
// run's wall time minus that of the same run without a blip.
//
//   node --conditions=verdict-source bench/faults/postgres-blips.ts
//
// Real parts: a throw-away PostgreSQL server (durable settings) from Debian's binaries, the
// fake OpenAI server over HTTP, evaluate() and `verdict test run` in child processes.

import {
  type BlipRunOutcome,
  type PostgresBlip,
  runThroughBlip,
} from "../../test/fixtures/postgres-blip-run.ts";
import {
  findPostgresBinaries,
  type PostgresCluster,
  startPostgresCluster,
} from "../../test/fixtures/postgres-cluster.ts";
import { type FaultFigures, isMainModule, reportAlone } from "../fault-figures.ts";

const OUTAGE_MS = 10_000;
/** Recovery allowed once the server is back: the longest wait between two retries is 2 s. */
const STALL_MARGIN_MS = 5000;

const FRONTS = {
  evaluate: { cases: 40, blipAfterRequests: 30, label: "evaluate()" },
  "test-run": { cases: 24, blipAfterRequests: 40, label: "verdict test run" },
} as const;

type Front = keyof typeof FRONTS;

const SCENARIOS: Array<{ front: Front; blip: PostgresBlip; name: string }> = [
  { front: "evaluate", blip: { kind: "restart" }, name: "restart (pg_ctl restart -m fast)" },
  { front: "evaluate", blip: { kind: "outage", downMs: OUTAGE_MS }, name: "server down 10 s" },
  { front: "test-run", blip: { kind: "restart" }, name: "restart (pg_ctl restart -m fast)" },
  { front: "test-run", blip: { kind: "outage", downMs: OUTAGE_MS }, name: "server down 10 s" },
  {
    front: "evaluate",
    blip: { kind: "terminate", times: 3, everyMs: 200 },
    name: "backends terminated mid-statement, 3 times",
  },
];

const seconds = (milliseconds: number) => `${(milliseconds / 1000).toFixed(1)} s`;

function rowsOf(options: {
  title: string;
  outcome: BlipRunOutcome;
  baselineMs: number;
}): FaultFigures["rows"] {
  const { title, outcome, baselineMs } = options;
  const completed = outcome.storedStatus === "completed" && outcome.exitCode === 0;
  const paidTwice = outcome.judgeRequests - outcome.distinctRequests;
  const stallMs = outcome.wallMs - baselineMs;
  const storeErrors = /Could not|StoreError/.test(outcome.stderr);
  return [
    {
      figure: `${title}: run completed; results lost; duplicated; tests errored by the store`,
      goal: "completed; 0; 0; 0",
      measured:
        `${completed ? "completed" : `not completed (${outcome.storedStatus ?? "no run"}, exit ${outcome.exitCode})`}; ` +
        `${outcome.lost}; ${outcome.duplicated}; ${outcome.errored}` +
        (storeErrors ? " (store errors printed)" : ""),
      pass:
        completed &&
        outcome.storedRuns === 1 &&
        outcome.lost === 0 &&
        outcome.duplicated === 0 &&
        outcome.errored === 0 &&
        !storeErrors,
    },
    {
      figure: `${title}: judge calls paid twice, against the requests in flight at the blip`,
      goal: "≤ in flight",
      measured: `${paidTwice} (${outcome.inFlightAtBlip} in flight; ${outcome.judgeRequests} calls for ${outcome.distinctRequests} requests)`,
      pass: paidTwice <= outcome.inFlightAtBlip,
    },
    {
      figure: `${title}: wall time of the stall (the run's time minus the same run's without a blip)`,
      goal: `≤ the blip + ${seconds(STALL_MARGIN_MS)}`,
      measured: `${stallMs < 0 ? "−" : "+"}${seconds(Math.abs(stallMs))} (blip ${seconds(outcome.blipMs)}; run ${seconds(outcome.wallMs)}, without ${seconds(baselineMs)})`,
      pass: stallMs <= outcome.blipMs + STALL_MARGIN_MS,
    },
  ];
}

async function measureOn(cluster: PostgresCluster): Promise<FaultFigures["rows"]> {
  // The same runs without a blip, the faster of two: the first also warms the disk cache.
  const baselines = new Map<Front, number>();
  for (const front of Object.keys(FRONTS) as Front[]) {
    const times: number[] = [];
    for (let time = 0; time < 2; time++) {
      const run = await runThroughBlip({
        cluster,
        front,
        blip: { kind: "none" },
        ...FRONTS[front],
      });
      times.push(run.wallMs);
    }
    baselines.set(front, Math.min(...times));
  }
  const rows: FaultFigures["rows"] = [];
  for (const scenario of SCENARIOS) {
    const front = FRONTS[scenario.front];
    const outcome = await runThroughBlip({
      cluster,
      front: scenario.front,
      blip: scenario.blip,
      ...front,
    });
    rows.push(
      ...rowsOf({
        title: `${front.label}, ${scenario.name}`,
        outcome,
        baselineMs: baselines.get(scenario.front) ?? 0,
      }),
    );
  }
  return rows;
}

/** The PostgreSQL blip figures of the fault bench. */
export async function measurePostgresBlips(): Promise<FaultFigures> {
  const title = "PostgreSQL restarts and outages mid-run (issue 19, item 4)";
  if (findPostgresBinaries() === null) {
    return {
      title,
      rows: [
        {
          figure: "PostgreSQL blips during evaluate() and verdict test run",
          goal: "measured",
          measured:
            "skipped: PostgreSQL is not installed here (apt-get install postgresql, then run again)",
          pass: true,
        },
      ],
    };
  }
  const cluster = await startPostgresCluster({ fast: false });
  try {
    return { title, rows: await measureOn(cluster) };
  } finally {
    await cluster.stop();
  }
}

if (isMainModule(import.meta.url)) reportAlone(await measurePostgresBlips());

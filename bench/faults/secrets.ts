/**
 * Secrets echoed by the judge server (issue 9, "Secrets by value"): how often an `sk-…` key
 * and a plain random 40-character key appear in what a whole run writes — the database with
 * its WAL, the judge cache, each report, stdout/stderr, error messages and `util.inspect` of
 * the errors thrown — with the plain key given by the environment, a `.env` file and
 * `createOpenAI({ apiKey })`; goal 0 everywhere. Then what masking costs per stored case.
 *
 * Run alone: node --conditions=verdict-source bench/faults/secrets.ts
 */

import { rmSync } from "node:fs";
import { redactSecretText } from "../../src/secrets/redact-secrets.ts";
import { registerSecretValues } from "../../src/secrets/secret-registry.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import {
  countOccurrences,
  runSecretEchoScenario,
  type SecretMode,
} from "../../test/faults/secret-echo-scenario.ts";
import { metricData, testResult } from "../../test/fixtures/results.ts";
import { type FaultFigures, isMainModule, reportAlone } from "../fault-figures.ts";

const MODES: readonly SecretMode[] = ["env", "dotenv", "code"];

/** Runs the echo scenario once per way of giving the key and counts each secret per channel. */
export async function measureSecrets(): Promise<FaultFigures> {
  const counts = new Map<string, { skKey: number; plainKey: number }>();
  const problems: string[] = [];
  for (const mode of MODES) {
    const outcome = await runSecretEchoScenario({ mode });
    try {
      if (outcome.exitCode !== 0) problems.push(`${mode}: exit code ${outcome.exitCode}`);
      for (const [channel, bytes] of outcome.channels) {
        const name = channel.replace(/^report (first|cached)\./, "report .");
        const total = counts.get(name) ?? { skKey: 0, plainKey: 0 };
        total.skKey += countOccurrences(bytes, outcome.secrets.skKey);
        total.plainKey += countOccurrences(bytes, outcome.secrets.plainKey);
        counts.set(name, total);
      }
    } finally {
      rmSync(outcome.folder, { recursive: true, force: true });
    }
  }
  const rows: FaultFigures["rows"] = [...counts].map(([channel, total]) => ({
    figure: `occurrences in ${channel} (sk- key / plain key; env, .env and code runs)`,
    goal: "0 / 0",
    measured: `${total.skKey} / ${total.plainKey}`,
    pass: total.skKey === 0 && total.plainKey === 0,
  }));
  rows.push({
    figure: "runs that finished (exit code 0)",
    goal: `${MODES.length} of ${MODES.length}`,
    measured: `${MODES.length - problems.length} of ${MODES.length}${problems.length ? ` (${problems.join("; ")})` : ""}`,
    pass: problems.length === 0,
  });
  rows.push(...(await measureOverhead()));
  return { title: "Secrets echoed by the judge server", rows };
}

/** CPU that masking adds to each stored case and each cached answer, with two keys known. */
async function measureOverhead(): Promise<FaultFigures["rows"]> {
  const forget = registerSecretValues([
    "Zq8vLr2mXw4Tn6Pb0Hc5Jd7Kf9Gs1Ay3UeQw8Rt",
    "sk-proj-N4bq7Vw2Lr8Xe5Ty1Ui0Op3As6Df9Gh",
  ]);
  try {
    const result = testResult({
      input: "What does the refund policy say about opened items? ".repeat(4),
      actualOutput: "Opened items can be refunded within 30 days with a receipt. ".repeat(6),
      metricsData: ["Toxicity", "Bias", "Answer Relevancy"].map((name) =>
        metricData({
          name,
          verboseLogs: `Opinions:\n${JSON.stringify(["an opinion about refunds"].concat(Array(8).fill("another opinion")), null, 2)}\n\nVerdicts:\n${JSON.stringify(Array(9).fill({ verdict: "no", reason: "It states a policy without hostility." }), null, 2)}`,
        }),
      ),
    });
    const json = JSON.stringify(result);
    const iterations = 2000;
    // The best of several rounds: other processes on the machine only ever add time.
    const time = (work: () => void) => {
      for (let index = 0; index < 1000; index++) work();
      let best = Number.POSITIVE_INFINITY;
      for (let round = 0; round < 10; round++) {
        const started = process.hrtime.bigint();
        for (let index = 0; index < iterations; index++) work();
        best = Math.min(best, Number(process.hrtime.bigint() - started) / iterations / 1000);
      }
      return best;
    };
    const timeAsync = async (work: () => Promise<void>) => {
      for (let index = 0; index < 1000; index++) await work();
      let best = Number.POSITIVE_INFINITY;
      for (let round = 0; round < 10; round++) {
        const started = process.hrtime.bigint();
        for (let index = 0; index < iterations; index++) await work();
        best = Math.min(best, Number(process.hrtime.bigint() - started) / iterations / 1000);
      }
      return best;
    };
    const maskMicros = time(() => redactSecretText(json));
    const store = new SqliteRunStore({ path: ":memory:" });
    await store.runs.startRun({
      id: "bench",
      identifier: null,
      status: "running",
      startedAt: new Date().toISOString(),
      endedAt: null,
      config: {},
      summary: null,
    });
    const saveMicros = await timeAsync(() =>
      store.runs.saveTestResult("bench", { fingerprint: "f", result }),
    );
    const answer = JSON.stringify({ verdicts: Array(9).fill({ verdict: "no", reason: "fine" }) });
    const cacheMicros = time(() => redactSecretText(answer));
    await store.close();
    return [
      {
        figure: `masking CPU per stored case (${json.length} bytes of JSON, 3 metrics, 2 known keys + the environment)`,
        goal: "< 100 µs (a judge call takes 100 ms or more)",
        measured: `${maskMicros.toFixed(1)} µs (saveTestResult, masking included: ${saveMicros.toFixed(1)} µs, in-memory SQLite)`,
        pass: maskMicros < 100,
      },
      {
        figure: `masking CPU per cached judge answer (${answer.length} bytes)`,
        goal: "< 20 µs",
        measured: `${cacheMicros.toFixed(1)} µs`,
        pass: cacheMicros < 20,
      },
    ];
  } finally {
    forget();
  }
}

if (isMainModule(import.meta.url)) reportAlone(await measureSecrets());

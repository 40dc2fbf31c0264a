// Calibration with a judge of known error rate: runs one human-labelled set from
// ../shared/data (read in place, never copied; skipped when absent) through calibrate() with
// the synthetic judge of test/fixtures/synthetic-judge.ts, which answers each row from its label
// and flips the verdict with probability p. Prints the calibration report of one seed, then how
// often the 95% intervals of κ and accuracy held the truth over 100 seeds, each a whole
// calibrate() run (runner, scheduler, report), and over 10,000 seeds of the same coins without
// the runner, for a tighter figure. Not part of `npm test`.
//   npm run bench:calibrate
//   npm run bench:calibrate -- --data bias/redditbias.jsonl --metric bias --rows 500 --flip 0.2
//   node --conditions=verdict-source bench/calibrate.ts --help
import { existsSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type CalibrationMetricName, calibrate } from "../src/calibrate/calibrate.ts";
import { readLabelledRows } from "../src/dataset/read-labelled-rows.ts";
import { renderCalibrationConsoleReport } from "../src/report/calibration/calibration-console-report.ts";
import { cohensKappa, seededRandom, wilsonInterval } from "../src/results/statistics.ts";
import { createSyntheticJudge, expectedKappa, flipsRow } from "../test/fixtures/synthetic-judge.ts";

const USAGE = `Usage: npm run bench:calibrate -- [options]
  --data FILE       a file under ../shared/data (default toxicity/davidson_hate_offensive.jsonl)
  --metric NAME     toxicity (default), bias or relevancy
  --rows N          the first N rows of the file (default 300; the files are shuffled)
  --flip P          the synthetic judge's error rate (default 0.15)
  --seed S          the seed of the printed report (default 1)
  --seeds N         calibrate() runs for the coverage figure (default 100)
  --coins N         seeds of the runner-free coverage figure (default 10000)
  --grid            instead: coverage of the κ and accuracy intervals over 45 simulated
                    settings (n 50–500, 10–50% positive, p 0.05–0.3; 3,000 seeds each); no data
  --help            this text`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

let values: Record<string, string | boolean | undefined>;
try {
  ({ values } = parseArgs({
    options: {
      data: { type: "string" },
      metric: { type: "string" },
      rows: { type: "string" },
      flip: { type: "string" },
      seed: { type: "string" },
      seeds: { type: "string" },
      coins: { type: "string" },
      grid: { type: "boolean" },
      help: { type: "boolean" },
    },
  }));
} catch (error) {
  fail((error as Error).message);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const whole = (name: string, fallback: number) => {
  const value = values[name] === undefined ? fallback : Number(values[name]);
  if (!Number.isSafeInteger(value) || value < 1)
    fail(`--${name} takes a whole number of 1 or more.`);
  return value;
};
const rowCount = whole("rows", 300);
const reportSeed = whole("seed", 1);
const seeds = whole("seeds", 100);
const coins = whole("coins", 10000);
const flipProbability = values.flip === undefined ? 0.15 : Number(values.flip);
if (!(flipProbability >= 0 && flipProbability < 0.5))
  fail("--flip takes a rate from 0 to below 0.5.");
const metric = (values.metric ?? "toxicity") as CalibrationMetricName;
if (!["toxicity", "bias", "relevancy"].includes(metric))
  fail("--metric takes toxicity, bias or relevancy.");

function covers(interval: readonly [number, number] | null, value: number): boolean {
  return interval !== null && interval[0] <= value && value <= interval[1];
}

if (values.grid) {
  printCoverageGrid();
  process.exit(0);
}

/**
 * Coverage of the intervals where the truth is known exactly: labels fixed (the first n·π rows
 * positive), each answer flipped with probability p by a seeded generator.
 */
function printCoverageGrid(): void {
  const lines = [
    "| rows | positive | p | κ interval holds the true κ | accuracy interval holds 1 − p |",
    "|---|---|---|---|---|",
  ];
  const deviations: number[] = [];
  const kappaCoverages: number[] = [];
  const accuracyCoverages: number[] = [];
  const runs = 3000;
  for (const n of [50, 100, 200, 300, 500]) {
    for (const prevalence of [0.1, 0.3, 0.5]) {
      for (const flip of [0.05, 0.15, 0.3]) {
        const positives = Math.round(n * prevalence);
        const truth = expectedKappa({ prevalence: positives / n, flip });
        let kappaCount = 0;
        let accuracyCount = 0;
        for (let seed = 1; seed <= runs; seed++) {
          const random = seededRandom(seed * 13 + n);
          const matrix: [[number, number], [number, number]] = [
            [0, 0],
            [0, 0],
          ];
          for (let row = 0; row < n; row++) {
            const positive = row < positives;
            const said = random() < flip ? !positive : positive;
            (positive ? matrix[0] : matrix[1])[said ? 0 : 1] += 1;
          }
          if (covers(cohensKappa({ matrix }).interval, truth)) kappaCount += 1;
          const accuracy = wilsonInterval({ successes: matrix[0][0] + matrix[1][1], trials: n });
          if (covers(accuracy, 1 - flip)) accuracyCount += 1;
        }
        kappaCoverages.push(kappaCount / runs);
        accuracyCoverages.push(accuracyCount / runs);
        deviations.push(Math.abs(kappaCount / runs - 0.95));
        lines.push(
          `| ${n} | ${prevalence * 100}% | ${flip} | ${((100 * kappaCount) / runs).toFixed(1)}% | ${((100 * accuracyCount) / runs).toFixed(1)}% |`,
        );
      }
    }
  }
  const mean = deviations.reduce((sum, value) => sum + value, 0) / deviations.length;
  lines.push(
    "",
    `κ interval: coverage ${(100 * Math.min(...kappaCoverages)).toFixed(1)}–${(100 * Math.max(...kappaCoverages)).toFixed(1)}%, on average ${(100 * mean).toFixed(1)} points from 95%; accuracy interval: ${(100 * Math.min(...accuracyCoverages)).toFixed(1)}–${(100 * Math.max(...accuracyCoverages)).toFixed(1)}% (${runs} seeds a setting).`,
  );
  process.stdout.write(`${lines.join("\n")}\n`);
}

const dataName = String(values.data ?? "toxicity/davidson_hate_offensive.jsonl");
const dataFile = fileURLToPath(new URL(`../../shared/data/${dataName}`, import.meta.url));
if (!existsSync(dataFile)) {
  process.stdout.write(
    `Skipped: ${relative(process.cwd(), dataFile)} is absent (see shared/data/README.md; it is never copied into the project).\n`,
  );
  process.exit(0);
}

const { rows } = await readLabelledRows({ data: dataFile, limit: rowCount });
const synthetic = rows.map((row) => ({
  input: row.input,
  actualOutput: row.actualOutput,
  positive: row.positive,
}));
const prevalence = rows.filter((row) => row.positive).length / rows.length;
const trueKappa = expectedKappa({ prevalence, flip: flipProbability });
const trueAccuracy = 1 - flipProbability;
const quiet = {
  store: false,
  handleInterrupt: false,
  showProgress: false,
  maxConcurrent: 50,
} as const;

async function calibrateSeed(seed: number) {
  return calibrate({
    metric,
    model: createSyntheticJudge({ rows: synthetic, flipProbability, seed }),
    data: dataFile,
    limit: rowCount,
    ...quiet,
  });
}

process.stdout.write(
  `verdict calibration bench · ${dataName} · first ${rows.length} rows (${Math.round(prevalence * 1000) / 10}% positive) · ${metric} · synthetic judge p = ${flipProbability}\n` +
    `Truth: accuracy ${trueAccuracy.toFixed(3)}, κ ${trueKappa.toFixed(3)}\n\n`,
);

const started = performance.now();
const shown = await calibrateSeed(reportSeed);
const oneRunMs = performance.now() - started;
process.stdout.write(
  renderCalibrationConsoleReport({
    report: { ...shown, data: { ...shown.data, source: `../shared/data/${dataName}` } },
  }),
);
process.stdout.write(`\n(one calibrate() run: ${(oneRunMs / 1000).toFixed(2)} s)\n\n`);

// 100 whole calibrate() runs, one per seed.
let kappaCovered = 0;
let accuracyCovered = 0;
let kappaSum = 0;
let accuracySum = 0;
const runsStarted = performance.now();
for (let seed = 1; seed <= seeds; seed++) {
  const report = await calibrateSeed(seed);
  if (covers(report.kappaCi, trueKappa)) kappaCovered += 1;
  if (covers(report.accuracyCi, trueAccuracy)) accuracyCovered += 1;
  kappaSum += report.kappa ?? 0;
  accuracySum += report.accuracy ?? 0;
}
const runsSeconds = (performance.now() - runsStarted) / 1000;

// The same coins without the runner, for many more seeds: a tighter coverage estimate. Its
// first `seeds` seeds must give exactly the counts of the calibrate() runs above.
let coinKappa = 0;
let coinAccuracy = 0;
let firstKappa = 0;
let firstAccuracy = 0;
for (let seed = 1; seed <= coins; seed++) {
  if (seed === seeds + 1) [firstKappa, firstAccuracy] = [coinKappa, coinAccuracy];
  const matrix: [[number, number], [number, number]] = [
    [0, 0],
    [0, 0],
  ];
  for (const row of synthetic) {
    const said = flipsRow({ seed, flipProbability, ...row }) ? !row.positive : row.positive;
    (row.positive ? matrix[0] : matrix[1])[said ? 0 : 1] += 1;
  }
  if (covers(cohensKappa({ matrix }).interval, trueKappa)) coinKappa += 1;
  const accuracy = wilsonInterval({
    successes: matrix[0][0] + matrix[1][1],
    trials: synthetic.length,
  });
  if (covers(accuracy, trueAccuracy)) coinAccuracy += 1;
}

if (coins <= seeds) [firstKappa, firstAccuracy] = [coinKappa, coinAccuracy];

const percent = (count: number, of: number) => `${((100 * count) / of).toFixed(1)}%`;
process.stdout.write(
  [
    `Coverage of the 95% intervals (goal: at least 93 of 100 seeds)`,
    "",
    "| runs | seeds | κ interval holds the true κ | accuracy interval holds 1 − p | mean κ | mean accuracy |",
    "|---|---|---|---|---|---|",
    `| calibrate() end to end | ${seeds} | ${kappaCovered} (${percent(kappaCovered, seeds)}) | ${accuracyCovered} (${percent(accuracyCovered, seeds)}) | ${(kappaSum / seeds).toFixed(3)} | ${(accuracySum / seeds).toFixed(3)} |`,
    `| the judge's coins, no runner | ${Math.min(seeds, coins)} | ${firstKappa} | ${firstAccuracy} | | |`,
    `| the judge's coins, no runner | ${coins} | ${coinKappa} (${percent(coinKappa, coins)}) | ${coinAccuracy} (${percent(coinAccuracy, coins)}) | | |`,
    "",
    `Goal of at least ${Math.ceil(0.93 * seeds)} of ${seeds}: κ ${kappaCovered >= Math.ceil(0.93 * seeds) ? "met" : "NOT met"}, accuracy ${accuracyCovered >= Math.ceil(0.93 * seeds) ? "met" : "NOT met"}. A 95% interval covers 93 or more of 100 seeds with a chance of about 87% (binomial), so the 10,000-seed row is the figure to judge the interval by.`,
    `${seeds} calibrate() runs of ${rows.length} rows took ${runsSeconds.toFixed(1)} s.`,
    "",
  ].join("\n"),
);
const goalMet =
  kappaCovered >= Math.ceil(0.93 * seeds) && accuracyCovered >= Math.ceil(0.93 * seeds);
if (!goalMet) process.exitCode = 1;

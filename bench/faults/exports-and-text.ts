// Fault figures of issue 19, items 1, 10 and 11: CSV that a spreadsheet opens (the dashboard's
// export and datasets), text that could spoof a display (console, JUnit, HTML, compare), the
// dashboard's image route over files a stored label names, and store import of NUL names.
//
//   node --conditions=verdict-source bench/faults/exports-and-text.ts
//
// Real parts: a SQLite store, the dashboard over HTTP, the report renderers, csv-parse with
// every line break ending a row (as spreadsheets read), PostgreSQL when installed. Inputs come
// from a seeded generator of its own (not the tests' fast-check cells).

import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parse } from "csv/sync";
import { EvaluationDataset, Golden } from "verdict";
import { VIEW_HOST } from "../../src/cli/commands/view.ts";
import { compareRuns } from "../../src/report/compare-runs.ts";
import { renderConsoleReport } from "../../src/report/console-report.ts";
import { formatRunComparison } from "../../src/report/format-run-comparison.ts";
import { renderHtmlReport } from "../../src/report/html-report.ts";
import { renderJUnitReport } from "../../src/report/junit-report.ts";
import { findFlakyCases, summarizeMetrics } from "../../src/results/summarize-run.ts";
import { copyStore } from "../../src/store/copy-store.ts";
import { PostgresRunStore } from "../../src/store/postgres-run-store.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import { isBlankText } from "../../src/test-case/llm-test-case.ts";
import { createViewServer } from "../../src/view/server/view-server.ts";
import { toViewStore } from "../../src/view/server/view-store.ts";
import { seededRandom } from "../../test/fixtures/bad-inputs.ts";
import { makeAppFolder } from "../../test/fixtures/dashboard-runs.ts";
import { rawHiddenCharacters } from "../../test/fixtures/hidden-characters.ts";
import { fileImageRecords, PNG_BYTES } from "../../test/fixtures/images.ts";
import {
  findPostgresBinaries,
  startPostgresCluster,
} from "../../test/fixtures/postgres-cluster.ts";
import { evaluationResult, testResult } from "../../test/fixtures/results.ts";
import { isCellOrNeutralised, isLiveFormula } from "../../test/fixtures/spreadsheet-cells.ts";
import { type FaultFigures, isMainModule, reportAlone } from "../fault-figures.ts";
import { hazardousResults, hazardousText, LOOKALIKES } from "../hazardous-text.ts";

const SEEDS = [101, 202, 303, 404, 505, 606];
const CASES_PER_RUN = 50;

async function withDashboard<Result>(
  store: SqliteRunStore,
  projectRoot: string,
  use: (base: string) => Promise<Result>,
): Promise<Result> {
  const appFolder = makeAppFolder();
  const server = createViewServer({
    store: toViewStore(store),
    log: () => {},
    appFolder,
    projectRoot,
  });
  await new Promise<void>((resolve) => server.listen(0, VIEW_HOST, () => resolve()));
  try {
    return await use(`http://${VIEW_HOST}:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(appFolder, { recursive: true, force: true });
  }
}

// Every line break outside quotes ends a row, as in spreadsheets. CSV that does not parse so is
// read again leniently, so that its cells are still judged.
function parseStrictly(text: string): string[][] {
  const record_delimiter = ["\r\n", "\n", "\r"];
  try {
    return parse(text, { record_delimiter }) as string[][];
  } catch {
    return parse(text, {
      record_delimiter,
      relax_quotes: true,
      relax_column_count: true,
    }) as string[][];
  }
}

interface Tally {
  rows: number;
  exact: number;
  cells: number;
  live: number;
  shownRaw: number;
  outputs: number;
  badXml: number;
  echoed: number;
  hiddenServed: number;
  labels: number;
}

async function measureDashboard(store: SqliteRunStore, folder: string, tally: Tally) {
  // Project files a planted label may name: secrets, text, binary, images in hidden folders.
  const files: Record<string, Uint8Array> = {};
  for (const seed of SEEDS) {
    files[`.env.${seed}`] = Buffer.from(`API_KEY=sk-${randomBytes(12).toString("hex")}\n`);
    files[`notes-${seed}.txt`] = Buffer.from(hazardousText(seededRandom(seed)).repeat(3) || "x");
    files[`blob-${seed}.bin`] = randomBytes(64);
    files[`.git/objects/${seed}.png`] = PNG_BYTES;
    files[`photos/.cache/${seed}.png`] = PNG_BYTES;
  }
  for (const [name, bytes] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, name)), { recursive: true });
    writeFileSync(join(folder, name), bytes);
  }
  const labels = [...Object.keys(files), ...Object.keys(files).map((name) => `photos/../${name}`)];
  await store.runs.startRun({ ...runHeader("planted"), identifier: null });
  await store.runs.saveTestResult("planted", {
    fingerprint: "f",
    result: testResult({
      images: fileImageRecords(labels),
    }),
  });
  await withDashboard(store, folder, async (base) => {
    for (const [index, label] of labels.entries()) {
      const response = await fetch(`${base}/api/runs/planted/cases/0/images/${index + 1}`);
      const body = await response.text();
      tally.labels += 1;
      if (response.status === 200) tally.hiddenServed += 1;
      const bytes = files[label.replace("photos/../", "")] as Uint8Array;
      const text = Buffer.from(bytes).toString("utf8");
      const hex = [...bytes.subarray(0, 4)].map((byte) => byte.toString(16).padStart(2, "0"));
      const quoted = [...Array(Math.max(0, text.length - 5)).keys()].some((start) => {
        const piece = text.slice(start, start + 6);
        return /[A-Za-z0-9]{6}/.test(piece) && body.includes(piece);
      });
      if (quoted || (response.status !== 200 && body.includes(hex.join(" ")))) tally.echoed += 1;
    }
    for (const seed of SEEDS) {
      const runId = `run-${seed}`;
      const csv = await (await fetch(`${base}/api/runs/${runId}/export?format=csv`)).text();
      const rows = parseStrictly(csv);
      const stored = hazardousResults(seed, CASES_PER_RUN);
      for (const [index, result] of stored.entries()) {
        const row = rows[index + 1] ?? [];
        const metric = result.metricsData[0];
        const expected: Array<[number, string]> = [
          [1, result.name],
          [5, result.input],
          [6, result.actualOutput ?? ""],
          [7, result.expectedOutput ?? ""],
        ];
        const offset = (rows[0] ?? []).findIndex((cell) =>
          isCellOrNeutralised(cell, `${metric?.name} reason`),
        );
        if (offset >= 0) expected.push([offset, metric?.reason ?? ""]);
        tally.rows += 1;
        const sameWidth = row.length === (rows[0]?.length ?? -1);
        if (
          sameWidth &&
          offset >= 0 &&
          expected.every(([column, text]) => isCellOrNeutralised(row[column] ?? "", text))
        ) {
          tally.exact += 1;
        }
      }
      for (const cell of rows.flat()) {
        tally.cells += 1;
        if (isLiveFormula(cell)) tally.live += 1;
      }
      for (const format of ["html", "junit"]) {
        const text = await (
          await fetch(`${base}/api/runs/${runId}/export?format=${format}`)
        ).text();
        countShown(text, tally);
      }
    }
  });
}

function runHeader(id: string) {
  return {
    id,
    identifier: `nightly-${id}`,
    status: "completed" as const,
    startedAt: "2025-01-01T00:00:00.000Z",
    endedAt: "2025-01-01T00:01:00.000Z",
    config: {},
    summary: null,
  };
}

function countShown(text: string, tally: Tally): void {
  tally.outputs += 1;
  tally.shownRaw += rawHiddenCharacters(text).length;
}

function measureReports(tally: Tally): void {
  for (const seed of SEEDS) {
    const testResults = hazardousResults(seed, CASES_PER_RUN);
    const result = evaluationResult({
      testRunId: `run-${hazardousText(seededRandom(seed + 1))}`,
      identifier: hazardousText(seededRandom(seed + 2)),
      testResults,
    });
    result.summary.metrics = summarizeMetrics(testResults);
    result.summary.flakyCases = findFlakyCases(testResults);
    countShown(renderConsoleReport({ result, display: "all" }), tally);
    countShown(renderHtmlReport({ result }), tally);
    const xml = renderJUnitReport({ result });
    countShown(xml, tally);
    // XML 1.0's Char production: what a CI parser accepts.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: checking for what XML forbids
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(xml)) tally.badXml += 1;
    const run = { ...runHeader(result.testRunId), identifier: result.identifier };
    const flipped = testResults.map((entry) => ({
      ...entry,
      metricsData: entry.metricsData.map((data) => ({ ...data, success: !data.success })),
    }));
    const comparison = compareRuns({
      baseline: { run, results: testResults },
      candidate: { run, results: flipped },
      maxDrop: 0,
    });
    countShown(
      formatRunComparison({ baseline: run, candidate: run, comparison, maxDrop: 0 }),
      tally,
    );
  }
}

async function measureGoldens(folder: string, tally: Tally): Promise<void> {
  for (const seed of SEEDS) {
    const random = seededRandom(seed * 7);
    // A CSV with NUL is refused both ways (documented), so goldens hold none.
    const text = () => {
      const written = hazardousText(random).replaceAll("\u0000", "");
      return isBlankText(written) ? `q${written}` : written;
    };
    const goldens = Array.from(
      { length: CASES_PER_RUN },
      () => new Golden({ input: text(), expectedOutput: text(), context: [text(), text()] }),
    );
    const path = join(folder, `goldens-${seed}.csv`);
    await new EvaluationDataset({ goldens }).save({ path });
    const { readFile } = await import("node:fs/promises");
    for (const cell of parseStrictly(await readFile(path, "utf8")).flat()) {
      tally.cells += 1;
      if (isLiveFormula(cell)) tally.live += 1;
    }
    const loaded = await EvaluationDataset.fromFile({ path });
    for (const [index, golden] of goldens.entries()) {
      tally.rows += 1;
      if (JSON.stringify(loaded.goldens[index]) === JSON.stringify(golden)) tally.exact += 1;
    }
  }
}

/** A SQLite store as an older verdict left it, NUL in run ids, identifiers and metric names. */
async function nulImport(folder: string): Promise<FaultFigures["rows"][number]> {
  const goal = "all runs, NUL → U+FFFD";
  if (findPostgresBinaries() === null) {
    return {
      figure: "store import SQLite → PostgreSQL with NUL names",
      goal,
      measured: "not measured: PostgreSQL is not installed",
      pass: false,
    };
  }
  const file = join(folder, "legacy.db");
  {
    await using store = new SqliteRunStore({ path: file });
    for (const seed of SEEDS) {
      await store.runs.startRun(runHeader(`legacy-${seed}`));
      await store.runs.saveTestResult(`legacy-${seed}`, { fingerprint: "f", result: testResult() });
    }
  }
  const database = new DatabaseSync(file);
  database.exec("PRAGMA foreign_keys = OFF");
  for (const seed of SEEDS) {
    const id = `legacy\u0000${seed}`;
    database
      .prepare("UPDATE runs SET id = ?, identifier = ? WHERE id = ?")
      .run(id, `n\u0000${seed}`, `legacy-${seed}`);
    database
      .prepare("UPDATE test_results SET run_id = ? WHERE run_id = ?")
      .run(id, `legacy-${seed}`);
  }
  database.close();
  const cluster = await startPostgresCluster();
  try {
    await using from = new SqliteRunStore({ path: file });
    await using to = await PostgresRunStore.open({
      url: `${cluster.url}?schema=bench_nul`,
      env: {},
    });
    const figure = `store import SQLite → PostgreSQL, ${SEEDS.length} runs with NUL in id and identifier`;
    let counts: Awaited<ReturnType<typeof copyStore>>;
    try {
      counts = await copyStore({ from, to });
    } catch (error) {
      const message = (error as Error).message.split("\n")[0]?.slice(0, 160) ?? "";
      return { figure, goal, measured: `failed: ${message}`, pass: false };
    }
    const runs = await to.runs.listRuns();
    const replaced = runs.filter(
      (run) => run.id.includes("\ufffd") && run.identifier?.includes("\ufffd"),
    );
    return {
      figure,
      goal,
      measured: `${replaced.length}/${SEEDS.length} runs, ${counts.testResults} results, ${counts.namesReplaced} names replaced`,
      pass: replaced.length === SEEDS.length && counts.testResults === SEEDS.length,
    };
  } finally {
    await cluster.stop();
  }
}

/** The export and text-hygiene figures of the fault bench. */
export async function measureExportsAndText(): Promise<FaultFigures> {
  const folder = mkdtempSync(join(tmpdir(), "verdict-exports-"));
  const tally: Tally = {
    rows: 0,
    exact: 0,
    cells: 0,
    live: 0,
    shownRaw: 0,
    outputs: 0,
    badXml: 0,
    echoed: 0,
    hiddenServed: 0,
    labels: 0,
  };
  try {
    await using store = new SqliteRunStore({ path: join(folder, "verdict.db") });
    for (const seed of SEEDS) {
      await store.runs.startRun(runHeader(`run-${seed}`));
      for (const result of hazardousResults(seed, CASES_PER_RUN)) {
        await store.runs.saveTestResult(`run-${seed}`, { fingerprint: "f", result });
      }
    }
    await measureDashboard(store, folder, tally);
    measureReports(tally);
    await measureGoldens(folder, tally);
    const imported = await nulImport(folder);
    return {
      title:
        "Exports a spreadsheet opens, text that could spoof a display, the dashboard's 404 (issue 19, items 1, 10, 11)",
      rows: [
        {
          figure:
            "CSV rows round-tripped exactly (dashboard export and datasets, parsed as RFC 4180)",
          goal: "N of N",
          measured: `${tally.exact} of ${tally.rows}`,
          pass: tally.exact === tally.rows,
        },
        {
          figure: `Formulas live after export (${tally.cells} cells, = + - @, tab, NUL, CR/LF and ${LOOKALIKES.length} lookalikes, on any line)`,
          goal: "0",
          measured: String(tally.live),
          pass: tally.live === 0,
        },
        {
          figure: `Bidi/control characters shown raw in console/JUnit/HTML/compare (${tally.outputs} outputs)`,
          goal: "0",
          measured: `${tally.shownRaw} (JUnit not XML 1.0: ${tally.badXml})`,
          pass: tally.shownRaw === 0 && tally.badXml === 0,
        },
        {
          figure: `Dashboard 404 echoing file bytes (${tally.labels} planted labels: .env, text, binary, hidden images)`,
          goal: "0",
          measured: `${tally.echoed} (hidden files served: ${tally.hiddenServed})`,
          pass: tally.echoed === 0 && tally.hiddenServed === 0,
        },
        imported,
      ],
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (isMainModule(import.meta.url)) reportAlone(await measureExportsAndText());

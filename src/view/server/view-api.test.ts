import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse } from "csv/sync";
import { describe, expect, it } from "vitest";
import {
  baselineResults,
  candidateResults,
  DASHBOARD_RUNS,
  DEAD_PID,
} from "../../../test/fixtures/dashboard-runs.ts";
import { useDashboards } from "../../../test/fixtures/dashboard-server.ts";
import { fileImageRecords, PNG_BYTES } from "../../../test/fixtures/images.ts";
import { answer } from "../../../test/fixtures/judge-answers.ts";
import { all, parseXml } from "../../../test/fixtures/parse-xml.ts";
import { testResult } from "../../../test/fixtures/results.ts";
import { runCompare } from "../../cli/commands/compare.ts";
import { evaluate } from "../../evaluate/evaluate.ts";
import { ToxicityMetric } from "../../metrics/toxicity/toxicity-metric.ts";
import { compareRuns } from "../../report/compare-runs.ts";
import { HTML_REPORT_CONTENT_SECURITY_POLICY } from "../../report/html-report.ts";
import { parseJsonReport } from "../../report/json-report.ts";
import type { ResultImage } from "../../results/evaluation-result.ts";
import { wilsonInterval } from "../../results/statistics.ts";
import type { Store } from "../../store/run-store.ts";
import { MockJudge } from "../../testing/mock-judge.ts";
import type { IdentifierList, RunDetail, RunsPage, Trend } from "../api.ts";
import type { CaseDetail, CasesPage, StepTable } from "../case-views.ts";
import type { RunComparisonView } from "../run-comparison-view.ts";

const dashboard = useDashboards();

const { baseline, candidate, components, repeated, running, dead, legacy } = DASHBOARD_RUNS;

describe("/api/runs", () => {
  it("lists runs newest first with their figures, a running run's so far, a dead one interrupted", async () => {
    const { getJson } = await dashboard();
    const { status, body } = await getJson<RunsPage>("/api/runs");
    expect(status).toBe(200);
    expect(body.total).toBe(7);
    expect(body.runs.map((run) => run.id)).toEqual([
      running,
      candidate,
      baseline,
      components,
      repeated,
      dead,
      legacy,
    ]);
    const [live, nightly] = body.runs;
    expect(nightly).toMatchObject({
      shortId: "bbbbbbbb",
      identifier: "nightly",
      status: "completed",
      stale: null,
      durationMs: 1234,
      cases: { total: 4, passed: 2, failed: 1, errored: 1, unscored: 0 },
      judgeCalls: 16,
      costUsd: 0.016,
      judges: ["openai:gpt-4.1"],
      shard: null,
      fakeJudge: false,
    });
    expect(nightly?.metrics.map((metric) => [metric.name, metric.passRate])).toEqual([
      ["Toxicity", 0.5],
      ["Answer Relevancy", 0.75],
    ]);
    // In progress: 2 of the 10 planned cases, no duration yet.
    expect(live).toMatchObject({
      status: "running",
      durationMs: null,
      cases: { total: 10, passed: 1, failed: 1, errored: 0, unscored: 8 },
    });
    const crashed = body.runs.find((run) => run.id === dead);
    expect(crashed?.status).toBe("interrupted");
    expect(crashed?.stale).toEqual({
      reason: `process ${DEAD_PID} on dashboard-host is gone`,
      resumeCommand:
        "verdict test run --identifier crashed (cached judge answers are not paid again)",
    });
    // Stored by an older verdict: errored cases and judges are read from its results.
    expect(body.runs.find((run) => run.id === legacy)).toMatchObject({
      cases: { total: 4, passed: 2, failed: 1, errored: 1, unscored: 0 },
      judges: ["openai:gpt-4.1"],
    });
  });

  it("filters by text, identifier, shown status and start date, and pages", async () => {
    const { getJson } = await dashboard();
    const ids = async (query: string) =>
      (await getJson<RunsPage>(`/api/runs?${query}`)).body.runs.map((run) => run.id);
    expect(await ids("q=NIGHT")).toEqual([candidate, baseline]);
    expect(await ids("q=bbbbbbbb")).toEqual([candidate]);
    expect(await ids("identifier=components")).toEqual([components]);
    expect(await ids("identifier=")).toEqual([]);
    expect(await ids("status=interrupted")).toEqual([dead]);
    expect(await ids("status=running")).toEqual([running]);
    expect(await ids("from=2025-03-01T09:30:00Z")).toEqual([running, candidate]);
    expect(await ids("to=2025-02-28")).toEqual([legacy]);
    expect(await ids("from=2025-03-01&to=2025-03-01T08:30:00Z")).toEqual([
      components,
      repeated,
      dead,
    ]);
    const page = await getJson<RunsPage>("/api/runs?offset=2&limit=2");
    expect(page.body).toMatchObject({ total: 7, offset: 2, limit: 2 });
    expect(page.body.runs.map((run) => run.id)).toEqual([baseline, components]);
  });

  it("answers a bad parameter with 400, saying what it takes", async () => {
    const { getJson } = await dashboard();
    for (const [query, message] of [
      ["limit=0", "limit must be a whole number from 1 to 500"],
      ["limit=501", "limit must be a whole number from 1 to 500"],
      ["offset=-1", "offset must be a whole number"],
      ["status=done", 'status must be one of "running", "completed"'],
      ["from=yesterday", "from must be a date (2025-01-31) or an ISO time"],
    ] as const) {
      const { status, body } = await getJson<{ error: string }>(`/api/runs?${query}`);
      expect(status, query).toBe(400);
      expect(body.error, query).toContain(message);
    }
  });
});

describe("/api/identifiers and /api/trends", () => {
  it("lists every identifier with its run count, newest first", async () => {
    const { getJson } = await dashboard();
    const { body } = await getJson<IdentifierList>("/api/identifiers");
    expect(body.identifiers[0]).toEqual({
      identifier: "live",
      runs: 1,
      latestStartedAt: "2025-03-01T11:59:00.000Z",
    });
    expect(body.identifiers.find((entry) => entry.identifier === "nightly")).toEqual({
      identifier: "nightly",
      runs: 2,
      latestStartedAt: "2025-03-01T10:00:00.000Z",
    });
  });

  it("gives an identifier's runs oldest first, each metric's mean and pass rate, and cost", async () => {
    const { getJson } = await dashboard();
    const { body } = await getJson<Trend>("/api/trends?identifier=nightly");
    expect(body.metricNames).toEqual(["Toxicity", "Answer Relevancy"]);
    expect(body.points.map((point) => point.runId)).toEqual([baseline, candidate]);
    expect(body.points[0]?.metrics.Toxicity).toEqual({ meanScore: 0.2, passRate: 1 });
    expect(body.points[1]?.metrics.Toxicity?.passRate).toBe(0.5);
    expect(body.points[1]?.costUsd).toBe(0.016);
    expect(
      (await getJson<Trend>("/api/trends?identifier=nightly&limit=1")).body.points,
    ).toHaveLength(1);
    expect((await getJson("/api/trends")).status).toBe(400);
  });
});

describe("/api/runs/:run", () => {
  it("gives the header, spending, histograms and what the table can group by", async () => {
    const { getJson } = await dashboard();
    const byId = await getJson<RunDetail>(`/api/runs/${candidate}`);
    const byIdentifier = await getJson<RunDetail>("/api/runs/nightly");
    expect(byIdentifier.body).toEqual(byId.body);
    const detail = byId.body;
    expect(detail.run.id).toBe(candidate);
    expect(detail.config).toEqual({
      metrics: [{ name: "Toxicity", judge: "openai:gpt-4.1" }],
      testCases: 4,
    });
    expect(detail.spending).toMatchObject({ judgeCalls: 16, inputTokens: 800, costUsd: 0.016 });
    expect(detail.histograms).toEqual([
      {
        metric: "Toxicity",
        counts: [0, 1, 1, 0, 0, 0, 0, 0, 0, 1],
        threshold: 0.5,
        lowerIsBetter: true,
      },
      {
        metric: "Answer Relevancy",
        counts: [0, 0, 0, 0, 1, 0, 0, 1, 1, 1],
        threshold: 0.7,
        lowerIsBetter: false,
      },
    ]);
    expect(detail.metricNames).toEqual(["Toxicity", "Answer Relevancy"]);
    expect(detail.files).toEqual(["evals/chat.eval.ts", "evals/report.eval.ts"]);
    expect(detail.tags).toEqual(["chat", "smoke"]);
    expect(detail.notice).toBeNull();
    expect(detail.resultsVersion).toBeGreaterThan(0);
  });

  it("carries each metric's 95% intervals from the stored summary; none for an older run", async () => {
    const { getJson, store } = await dashboard();
    const stored = (await store.runs.getRun(candidate))?.summary?.metrics ?? [];
    expect(stored.length).toBe(2);
    const rows = (await getJson<RunsPage>("/api/runs")).body.runs;
    const shown = rows.find((run) => run.id === candidate)?.metrics ?? [];
    expect(shown.map((metric) => [metric.meanScoreInterval, metric.passRateInterval])).toEqual(
      stored.map((metric) => [metric.meanScoreInterval, metric.passRateInterval]),
    );
    const [toxicityInterval] = shown;
    // Toxicity scored 0.1, 0.9 and 0.2 (one case errored): the mean 0.40 lies inside.
    expect(toxicityInterval?.meanScoreInterval?.[0]).toBeLessThan(0.4);
    expect(toxicityInterval?.meanScoreInterval?.[1]).toBeGreaterThan(0.4);
    expect(toxicityInterval?.passRateInterval).toEqual(wilsonInterval({ successes: 2, trials: 4 }));
    // The same on the run's page, and worked out for a run in progress.
    const detail = (await getJson<RunDetail>(`/api/runs/${candidate}`)).body;
    expect(detail.run.metrics).toEqual(shown);
    const live = (await getJson<RunDetail>(`/api/runs/${running}`)).body;
    expect(live.run.metrics[0]?.passRateInterval).toEqual(
      wilsonInterval({ successes: 1, trials: 2 }),
    );
    // Stored by a verdict that kept no intervals: null, not made up.
    const old = rows.find((run) => run.id === legacy)?.metrics ?? [];
    expect(old.map((metric) => [metric.meanScoreInterval, metric.passRateInterval])).toEqual([
      [null, null],
      [null, null],
    ]);
  });

  it("lists a repeated run's flaky cases with passes k/n, their interval and their case", async () => {
    const { getJson } = await dashboard();
    const detail = (await getJson<RunDetail>(`/api/runs/${repeated}`)).body;
    expect(detail.flakyCases).toEqual([
      {
        name: "flaky",
        position: 1,
        passedTrials: 1,
        trials: 2,
        passRateInterval: wilsonInterval({ successes: 1, trials: 2 }),
        key: "0",
      },
    ]);
    const flakyCase = await getJson<CaseDetail>(
      `/api/runs/${repeated}/cases/${detail.flakyCases[0]?.key}`,
    );
    expect(flakyCase.body.name).toBe("flaky");
    expect((await getJson<RunDetail>(`/api/runs/${candidate}`)).body.flakyCases).toEqual([]);
  });

  it("says on top when a run is in progress or its process is gone, and how to resume it", async () => {
    const { getJson } = await dashboard();
    expect((await getJson<RunDetail>(`/api/runs/${running}`)).body.notice).toContain("in progress");
    const notice = (await getJson<RunDetail>(`/api/runs/${dead}`)).body.notice;
    expect(notice).toContain(`process ${DEAD_PID} on dashboard-host is gone`);
    expect(notice).toContain("Resume it with verdict test run --identifier crashed");
    const missing = await getJson<{ error: string }>("/api/runs/nope");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toContain('No run with the id or identifier "nope"');
  });
});

describe("/api/runs/:run/cases", () => {
  async function cases(query = "") {
    const { getJson } = await dashboard();
    return async (more = query) =>
      (await getJson<CasesPage>(`/api/runs/${candidate}/cases?${more}`)).body;
  }

  it("gives each row the start of its input, output and expected output, and their whole lengths", async () => {
    const { getJson, store } = await dashboard();
    const long = `${"word ".repeat(100)}end`;
    await storeOneCase(store, "texts", { input: "q", actualOutput: long, expectedOutput: null });
    const [row] = (await getJson<CasesPage>("/api/runs/texts/cases")).body.cases;
    expect(row).toMatchObject({
      input: "q",
      actualOutput: long.slice(0, 200),
      expectedOutput: null,
      textLengths: { input: 1, actualOutput: long.length, expectedOutput: null },
    });
    const [candidateRow] = (await getJson<CasesPage>(`/api/runs/${candidate}/cases?limit=1`)).body
      .cases;
    expect(candidateRow?.actualOutput).toBe("Hello! How can I help?");
  });

  it("sorts by run order, name, status or any metric's score, either way", async () => {
    const query = await cases();
    const names = async (more: string) => (await query(more)).cases.map((row) => row.name);
    const first = await query("");
    expect(first).toMatchObject({ total: 4, runTotal: 4, offset: 0, limit: 100 });
    expect(first.cases.map((row) => [row.key, row.position, row.status])).toEqual([
      ["0", 1, "passed"],
      ["1", 2, "failed"],
      ["2", 3, "errored"],
      ["3", 4, "passed"],
    ]);
    expect(first.cases[0]).toMatchObject({
      file: "evals/chat.eval.ts",
      tags: ["smoke", "chat"],
      durationMs: 40,
      metrics: { Toxicity: { score: 0.1, success: true, threshold: 0.5, error: null } },
    });
    // Scores: 0.1, 0.9, none (errored), 0.2; a case without a score comes last both ways.
    expect(await names("sort=metric:Toxicity")).toEqual([
      "greets politely",
      "formula =1+1",
      "insults the user",
      "times out",
    ]);
    expect(await names("sort=metric:Toxicity&dir=desc")).toEqual([
      "insults the user",
      "formula =1+1",
      "greets politely",
      "times out",
    ]);
    expect(await names("sort=metric:Answer%20Relevancy&dir=desc")).toEqual([
      "greets politely",
      "times out",
      "formula =1+1",
      "insults the user",
    ]);
    expect(await names("sort=name")).toEqual([
      "formula =1+1",
      "greets politely",
      "insults the user",
      "times out",
    ]);
    expect(await names("sort=status")).toEqual([
      "times out",
      "insults the user",
      "greets politely",
      "formula =1+1",
    ]);
  });

  it("filters passing, failing and errored cases, and searches every text and reason", async () => {
    const query = await cases();
    const keys = async (more: string) => (await query(more)).cases.map((row) => row.key);
    expect(await keys("filter=passing")).toEqual(["0", "3"]);
    expect(await keys("filter=failing")).toEqual(["1"]);
    expect(await keys("filter=errored")).toEqual(["2"]);
    expect(await keys("q=GARBAGE")).toEqual(["1"]);
    expect(await keys("q=kind%20critique")).toEqual(["1"]);
    expect(await keys("q=judge%20timed%20out")).toEqual(["2"]);
    expect(await keys("q=relevancy%200.4")).toEqual(["1"]);
    expect(await keys("q=zzz")).toEqual([]);
    const searched = await query("q=say&filter=passing");
    expect(searched).toMatchObject({ total: 1, runTotal: 4 });
  });

  it("groups by file or by tag, a case with two tags in both groups, and pages across groups", async () => {
    const query = await cases();
    const byFile = await query("group=file");
    expect(byFile.groups).toEqual([
      { name: "evals/chat.eval.ts", count: 2 },
      { name: "evals/report.eval.ts", count: 1 },
      { name: "(no file)", count: 1 },
    ]);
    expect(byFile.cases.map((row) => [row.group, row.key])).toEqual([
      ["evals/chat.eval.ts", "0"],
      ["evals/chat.eval.ts", "1"],
      ["evals/report.eval.ts", "2"],
      ["(no file)", "3"],
    ]);
    const byTag = await query("group=tag");
    expect(byTag.groups).toEqual([
      { name: "chat", count: 2 },
      { name: "smoke", count: 1 },
      { name: "untagged", count: 2 },
    ]);
    expect(byTag.total).toBe(5);
    const page = await query("group=tag&offset=1&limit=3");
    expect(page.cases.map((row) => [row.group, row.key])).toEqual([
      ["chat", "1"],
      ["smoke", "0"],
      ["untagged", "2"],
    ]);
  });

  it("answers an unknown sort, filter or run with 400 or 404", async () => {
    const { getJson } = await dashboard();
    const unknownMetric = await getJson<{ error: string }>(
      `/api/runs/${candidate}/cases?sort=metric:Bias`,
    );
    expect(unknownMetric.status).toBe(400);
    expect(unknownMetric.body.error).toContain('its metrics are "Toxicity", "Answer Relevancy"');
    expect((await getJson(`/api/runs/${candidate}/cases?filter=bad`)).status).toBe(400);
    expect((await getJson(`/api/runs/${candidate}/cases?limit=1000`)).status).toBe(400);
    expect((await getJson(`/api/runs/${candidate}/cases?group=folder`)).status).toBe(400);
    expect((await getJson("/api/runs/nope/cases")).status).toBe(404);
  });

  it("sees cases saved after it first read the run (the cache follows the store)", async () => {
    const { getJson, store } = await dashboard();
    const before = await getJson<CasesPage>(`/api/runs/${running}/cases`);
    expect(before.body.runTotal).toBe(2);
    await store.runs.saveTestResult(running, {
      fingerprint: "f-9",
      result: testResult({ name: "late case", index: 9 }),
    });
    const after = await getJson<CasesPage>(`/api/runs/${running}/cases`);
    expect(after.body.runTotal).toBe(3);
    expect(after.body.resultsVersion).toBeGreaterThan(before.body.resultsVersion);
    expect(after.body.cases.at(-1)).toMatchObject({ key: "9", name: "late case", position: 3 });
  });
});

describe("/api/runs/:run/cases/:key", () => {
  it("shows a case whole: texts, the judge's steps as a table, its calls, images, neighbours", async () => {
    const { getJson } = await dashboard();
    const { body } = await getJson<CaseDetail>(`/api/runs/${candidate}/cases/1`);
    expect(body).toMatchObject({
      runId: candidate,
      key: "1",
      position: 2,
      name: "insults the user",
      status: "failed",
      expectedOutput: "A kind critique.",
      previousKey: "0",
      nextKey: "2",
      trials: [],
      trace: null,
    });
    const toxicity = body.metrics[0];
    expect(toxicity).toMatchObject({ name: "Toxicity", score: 0.9, success: false });
    expect(toxicity?.steps).toEqual([
      {
        label: "Opinions and Verdicts",
        columns: ["opinion", "verdict", "reason"],
        rows: [
          ["You are wrong.", "yes", "Opinion 1 is toxic."],
          ["Nice try.", "no", "Opinion 2 is fine."],
        ],
      },
    ]);
    expect(toxicity?.calls.map((call) => [call.step, call.source, call.latencyMs])).toEqual([
      ["generateOpinions", "judge", 120],
      ["generateVerdicts", "cache", 80],
    ]);
    expect(body.images).toEqual([
      {
        field: "input",
        number: 1,
        label: "data:image/png;base64,iVBOR…",
        src: `/api/runs/${candidate}/cases/1/images/1`,
        remoteUrl: null,
      },
      {
        field: "input",
        number: 2,
        label: "https://example.com/cat.png",
        src: null,
        remoteUrl: "https://example.com/cat.png",
      },
    ]);
    const first = await getJson<CaseDetail>(`/api/runs/${candidate}/cases/0`);
    expect(first.body).toMatchObject({ previousKey: null, context: ["Greeting policy."] });
    expect((await getJson<CaseDetail>(`/api/runs/${candidate}/cases/3`)).body.nextKey).toBeNull();
    expect((await getJson(`/api/runs/${candidate}/cases/42`)).status).toBe(404);
  });

  it("reads the steps of results stored before steps were kept from their verbose logs", async () => {
    const { getJson } = await dashboard();
    const { body } = await getJson<CaseDetail>(`/api/runs/${legacy}/cases/0`);
    expect(body.metrics[0]?.steps).toEqual([
      {
        label: "Statements and Verdicts",
        columns: ["statement", "verdict", "reason"],
        rows: [
          ["a", "yes", ""],
          ["b", "no", "off topic"],
        ],
      } satisfies StepTable,
    ]);
    expect(body.metrics[0]?.calls).toEqual([]);
  });

  it("shows each judge call's prompt and raw answer as the run kept them, or says only hashes were kept", async () => {
    const { getJson, store } = await dashboard();
    const testCases = [{ name: "rude", input: "How is Sarah?", actualOutput: "Sarah is nasty." }];
    const runs: Record<"text" | "hash", string> = { text: "", hash: "" };
    for (const keepJudgeText of ["text", "hash"] as const) {
      const judge = new MockJudge({ answers: answer });
      const result = await evaluate({
        testCases,
        metrics: [new ToxicityMetric({ model: judge })],
        store,
        keepJudgeText,
        display: "none",
        showProgress: false,
        handleInterrupt: false,
      });
      runs[keepJudgeText] = result.testRunId;
      if (keepJudgeText === "text") {
        const { body } = await getJson<CaseDetail>(`/api/runs/${result.testRunId}/cases/0`);
        const calls = body.metrics[0]?.calls ?? [];
        expect(calls.map((call) => call.prompt)).toEqual(judge.calls.map((call) => call.prompt));
        expect(calls[0]?.prompt).toContain('"Sarah is nasty."');
        expect(JSON.parse(calls[0]?.answer ?? "null")).toEqual({
          opinions: ["It is nasty.", "It is fine."],
        });
        expect(calls[0]?.promptHash).toMatch(/^[0-9a-f]{64}$/);
      }
    }
    const { body } = await getJson<CaseDetail>(`/api/runs/${runs.hash}/cases/0`);
    const call = body.metrics[0]?.calls[0];
    expect(call).toMatchObject({ prompt: null, answer: null });
    expect(call?.promptHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("shows every trial of a repeated case and the span tree of a component run", async () => {
    const { getJson } = await dashboard();
    const trials = (await getJson<CaseDetail>(`/api/runs/${repeated}/cases/0`)).body.trials;
    expect(trials.map((trial) => [trial.trial, trial.success, trial.metrics[0]?.score])).toEqual([
      [0, true, 0.1],
      [1, false, 0.9],
    ]);
    const trace = (await getJson<CaseDetail>(`/api/runs/${components}/cases/0`)).body.trace;
    expect(trace).toMatchObject({ name: "agent", type: "trace", input: { question: "q" } });
    expect(trace?.metrics.map((metric) => metric.name)).toEqual(["Toxicity"]);
    const retrieve = trace?.children[0];
    expect(retrieve).toMatchObject({ name: "retrieve", type: "retriever", output: ["doc"] });
    expect(retrieve?.children[0]).toMatchObject({
      name: "embed",
      error: "boom",
      durationMs: null,
      metrics: [expect.objectContaining({ name: "Answer Relevancy", score: 0.9 })],
    });
  });
});

/** Stores run `runId` with one case whose images are `images`. */
function storeImages(store: Store, runId: string, images: ResultImage[]): Promise<void> {
  return storeOneCase(store, runId, { images });
}

/** Stores run `runId` with one case (`testResult(fields)`). */
async function storeOneCase(
  store: Store,
  runId: string,
  fields: Parameters<typeof testResult>[0],
): Promise<void> {
  await store.runs.startRun({
    id: runId,
    identifier: null,
    status: "completed",
    startedAt: "2025-01-01T00:00:00.000Z",
    endedAt: null,
    config: {},
    summary: null,
  });
  await store.runs.saveTestResult(runId, { fingerprint: "f", result: testResult(fields) });
}

describe("/api/runs/:run/cases/:key/images/:n", () => {
  it("serves a stored image's bytes, never fetches a URL, and files only from inside the project", async () => {
    const { base, store, folder } = await dashboard();
    const image = await fetch(`${base}/api/runs/${candidate}/cases/1/images/1`);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(image.headers.get("content-security-policy")).toContain("sandbox");
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(PNG_BYTES);
    const remote = await fetch(`${base}/api/runs/${candidate}/cases/1/images/2`);
    expect(remote.status).toBe(404);
    expect(((await remote.json()) as { error: string }).error).toContain("never fetches");
    expect((await fetch(`${base}/api/runs/${candidate}/cases/1/images/3`)).status).toBe(404);

    writeFileSync(path.join(folder, "cat.png"), PNG_BYTES);
    writeFileSync(path.join(folder, "not-an-image.png"), "<script>alert(1)</script>");
    const fileImage = (label: string, number: number) => ({
      field: "input" as const,
      number,
      start: 0,
      end: 1,
      kind: "file" as const,
      label,
    });
    await storeImages(store, "files", [
      fileImage("cat.png", 1),
      fileImage(path.join(folder, "cat.png"), 2),
      fileImage("../../etc/passwd", 3),
      fileImage("not-an-image.png", 4),
      fileImage("missing.png", 5),
    ]);
    const served = await fetch(`${base}/api/runs/files/cases/0/images/1`);
    expect(served.status).toBe(200);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG_BYTES);
    expect((await fetch(`${base}/api/runs/files/cases/0/images/2`)).status).toBe(200);
    for (const number of [3, 4, 5]) {
      const refused = await fetch(`${base}/api/runs/files/cases/0/images/${number}`);
      expect(refused.status, String(number)).toBe(404);
    }
  });
});

describe("/api/runs/:run/cases/:key/images/:n with labels planted in the store", () => {
  it("never echoes a byte of the file a label names, and never reads hidden files", async () => {
    const { base, store, folder } = await dashboard();
    const files: Record<string, string | Uint8Array> = {
      ".env": "OPENAI_API_KEY=sk-live-0123456789abcdef\n",
      "notes.txt": "top secret plans for the launch\n",
      "page.html": "<!doctype html><title>admin password hunter2</title>",
      "key.der": new Uint8Array([0x30, 0x82, 0x04, 0xa4, 0x02, 0x01, 0x00, 0x02, 0x82]),
      ".git/cat.png": PNG_BYTES,
      "photos/.hidden.png": PNG_BYTES,
    };
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(folder, name)), { recursive: true });
      writeFileSync(path.join(folder, name), content);
    }
    const labels = [...Object.keys(files), "photos/../.env", "./.env"];
    await storeImages(store, "planted", fileImageRecords(labels));
    for (const [index, label] of labels.entries()) {
      const response = await fetch(`${base}/api/runs/planted/cases/0/images/${index + 1}`);
      const body = await response.text();
      expect(response.status, label).toBe(404);
      for (const secret of [
        "sk-live",
        "OPENAI",
        "secret plans",
        "hunter2",
        "HTML page",
        "30 82",
        "text:",
      ]) {
        expect(body, label).not.toContain(secret);
      }
    }
  });
});

describe("/api/compare", () => {
  it("gives the same numbers as verdict compare, direction-aware, with the changed cases' reasons", async () => {
    const { getJson, store } = await dashboard();
    // The plain --max-drop rule (stats=0, --no-stats): two cases are too few to test.
    const { status, body } = await getJson<RunComparisonView>(
      `/api/compare?run=nightly&baseline=${baseline}&stats=0`,
    );
    expect(status).toBe(200);
    const expected = compareRuns({
      baseline: { run: (await store.runs.getRun(baseline)) as never, results: baselineResults() },
      candidate: {
        run: (await store.runs.getRun(candidate)) as never,
        results: candidateResults(),
      },
      maxDrop: 0,
      alpha: null,
    });
    expect(body.alpha).toBeNull();
    expect(body.run.id).toBe(candidate);
    expect(body.baseline.id).toBe(baseline);
    expect(body.regressed).toBe(expected.regressed);
    expect(
      body.metrics.map((metric) => [
        metric.name,
        metric.baseline,
        metric.candidate,
        metric.regressions,
      ]),
    ).toEqual(
      expected.metrics.map((metric) => [
        metric.name,
        metric.baseline,
        metric.candidate,
        metric.regressions,
      ]),
    );
    const toxicity = body.metrics[0];
    expect(toxicity).toMatchObject({ name: "Toxicity", lowerIsBetter: true, direction: "worse" });
    expect(toxicity?.passRateChange).toBeCloseTo(-0.5, 12);
    expect(toxicity?.meanScoreChange).toBeCloseTo(
      (expected.metrics[0]?.candidate?.meanScore ?? 0) -
        (expected.metrics[0]?.baseline?.meanScore ?? 0),
      12,
    );
    expect(body.changes).toHaveLength(expected.changes.length);
    expect(body.changes).toContainEqual({
      metric: "Toxicity",
      name: "insults the user",
      runKey: "1",
      baselineKey: "1",
      from: "passed",
      to: "failed",
      baselineScore: 0.3,
      candidateScore: 0.9,
      baselineReason: "The score is 0.30 because of the opinions.",
      candidateReason: "The score is 0.90 because of the opinions.",
      baselineOutput: "Hello there",
      candidateOutput: "Your essay is garbage, like you.",
      outputDiff: [
        { kind: "removed", text: "Hello there" },
        { kind: "added", text: "Your essay is garbage, like you." },
      ],
    });

    // `verdict compare` prints these very numbers.
    let printed = "";
    const code = await runCompare({
      baseline,
      candidate: "nightly",
      alpha: null,
      cwd: "/",
      env: {},
      store,
      stdout: { write: (text: string) => (printed += text) },
      stderr: { write: () => true },
    });
    expect(code).toBe(1);
    expect(printed).toMatch(/Toxicity\s+lower\s+0\.20 → 0\.40 \(\+0\.20\)\s+100\.0% → 50\.0%/);
    expect(printed).toMatch(/insults the user\s+Toxicity\s+passed → failed\s+score 0\.30 → 0\.90/);
  });

  it("tests each change as verdict compare does: paired tests, not-significant drops, unmatched cases", async () => {
    const { getJson, store } = await dashboard();
    const { body } = await getJson<RunComparisonView>(
      `/api/compare?run=${candidate}&baseline=${baseline}&alpha=0.1`,
    );
    const expected = compareRuns({
      baseline: { run: (await store.runs.getRun(baseline)) as never, results: baselineResults() },
      candidate: {
        run: (await store.runs.getRun(candidate)) as never,
        results: candidateResults(),
      },
      maxDrop: 0,
      alpha: 0.1,
    });
    expect(body.alpha).toBe(0.1);
    expect(body.regressed).toBe(false);
    expect(body.unmatched).toEqual(expected.unmatched);
    expect(body.metrics.map((metric) => [metric.tests, metric.notSignificant])).toEqual(
      expected.metrics.map((metric) => [metric.tests, metric.notSignificant]),
    );
    const toxicity = body.metrics.find((metric) => metric.name === "Toxicity");
    expect(toxicity?.tests?.passFail).toMatchObject({ passToFail: 2, failToPass: 0 });
    // One-sided mid-p of 2 pass→fail, 0 fail→pass: P(X = 2 | n = 2) / 2.
    expect(toxicity?.tests?.passFail?.pValue).toBeCloseTo(0.125, 12);
    expect(toxicity?.notSignificant[0]).toMatch(/^pass rate 100\.0% → 50\.0% \(p = 0\.125\)$/);
    expect(
      (await getJson(`/api/compare?run=${candidate}&baseline=${baseline}&alpha=2`)).status,
    ).toBe(400);
  });

  it("reads maxDrop as verdict compare --max-drop, and needs both runs", async () => {
    const { getJson } = await dashboard();
    const lenient = await getJson<RunComparisonView>(
      `/api/compare?run=${candidate}&baseline=${baseline}&maxDrop=0.6`,
    );
    expect(lenient.body).toMatchObject({ maxDrop: 0.6, regressed: false });
    expect((await getJson(`/api/compare?run=${candidate}`)).status).toBe(400);
    expect((await getJson(`/api/compare?run=${candidate}&baseline=nope`)).status).toBe(404);
    expect(
      (await getJson(`/api/compare?run=${candidate}&baseline=${baseline}&maxDrop=-1`)).status,
    ).toBe(400);
  });
});

describe("/api/runs/:run/export", () => {
  it("downloads the run as the HTML report (its own policy), JSON, JUnit and CSV, each readable", async () => {
    const { base } = await dashboard();
    const download = async (format: string) => {
      const response = await fetch(`${base}/api/runs/${candidate}/export?format=${format}`);
      expect(response.status, format).toBe(200);
      return { response, text: await response.text() };
    };
    const html = await download("html");
    expect(html.response.headers.get("content-disposition")).toBe(
      'attachment; filename="verdict-nightly-bbbbbbbb.html"',
    );
    expect(html.response.headers.get("content-security-policy")).toBe(
      `${HTML_REPORT_CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`,
    );
    expect(html.text).toContain("insults the user");

    const json = await download("json");
    expect(json.response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const parsed = parseJsonReport({ text: json.text, source: "export.json" });
    expect(parsed.testRunId).toBe(candidate);
    expect(parsed.testResults).toEqual(candidateResults());

    const junit = await download("junit");
    expect(junit.response.headers.get("content-disposition")).toContain(".xml");
    const cases = all(parseXml(junit.text), "testcase");
    expect(cases).toHaveLength(8);

    const csv = await download("csv");
    const rows = parse(csv.text) as string[][];
    expect(rows).toHaveLength(5);
    expect(rows[0]?.slice(0, 4)).toEqual(["position", "name", "status", "file"]);
    expect(rows[0]).toContain("Toxicity score");
    expect(rows[2]?.slice(0, 3)).toEqual(["2", "insults the user", "failed"]);
    // Text a spreadsheet would run as a formula is kept as text.
    expect(rows[4]?.[5]).toBe('\'=HYPERLINK("http://evil.example")');
    expect(rows[4]?.[6]).toBe("'-2");

    const unknown = await fetch(`${base}/api/runs/${candidate}/export?format=pdf`);
    expect(unknown.status).toBe(400);
  });
});

describe("an asynchronous store", () => {
  it("serves the same answers when every read returns a promise", async () => {
    const sync = await dashboard();
    const expected = await sync.getJson<RunsPage>("/api/runs");
    const store = sync.store;
    const async = await dashboard({
      seed: false,
      store: {
        getRun: async (id) => store.runs.getRun(id),
        listRuns: async (options) => store.runs.listRuns(options),
        getTestResults: async (id, options) => store.runs.getTestResults(id, options),
        getTestResultsVersion: async (id) => store.runs.getTestResultsVersion(id),
        getCalibration: async (id) => store.calibrations.getCalibration(id),
        listCalibrations: async (options) => store.calibrations.listCalibrations(options),
      },
    });
    expect((await async.getJson<RunsPage>("/api/runs")).body).toEqual(expected.body);
    const page = await async.getJson<CasesPage>(
      `/api/runs/${candidate}/cases?sort=metric:Toxicity`,
    );
    expect(page.body.cases.map((row) => row.key)).toEqual(["0", "3", "1", "2"]);
  });
});

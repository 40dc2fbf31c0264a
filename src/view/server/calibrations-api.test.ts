import { describe, expect, it } from "vitest";
import {
  DASHBOARD_CALIBRATIONS,
  seedDashboardCalibrations,
} from "../../../test/fixtures/dashboard-calibrations.ts";
import { useDashboards } from "../../../test/fixtures/dashboard-server.ts";
import { rawHttpRequest } from "../../../test/fixtures/view-requests.ts";
import type { RunDetail } from "../api.ts";
import type { CalibrationDetail, CalibrationsPage } from "../calibration-views.ts";
import { parseViewRequest } from "./parse-view-request.ts";
import { VIEW_CONTENT_SECURITY_POLICY } from "./view-server.ts";

const dashboard = useDashboards();

const { toxicity, toxicityRun, relevancy, relevancyRun } = DASHBOARD_CALIBRATIONS;

/** A dashboard over the seeded runs plus the two calibrations. */
async function calibratedDashboard(options: Parameters<typeof dashboard>[0] = {}) {
  const started = await dashboard(options);
  await seedDashboardCalibrations(started.store);
  return started;
}

describe("/api/calibrations", () => {
  it("lists calibrations newest first: metric, n, accuracy and κ with their intervals, run", async () => {
    const { getJson, store } = await calibratedDashboard();
    const { status, body } = await getJson<CalibrationsPage>("/api/calibrations");
    expect(status).toBe(200);
    expect(body.runId).toBeNull();
    expect(body.limit).toBe(50);
    expect(body.calibrations.map((row) => row.id)).toEqual([relevancy, toxicity]);
    const report = await store.calibrations.getCalibration(toxicity);
    if (report === null) throw new Error("the fixture stores the calibration");
    expect(body.calibrations[1]).toEqual({
      id: toxicity,
      createdAt: "2025-03-01T13:05:00.000Z",
      runId: toxicityRun,
      status: "completed",
      metric: "Toxicity",
      lowerIsBetter: true,
      threshold: 0.5,
      judge: "openai:gpt-4.1",
      source: "labels.jsonl",
      rows: { total: 10, scored: 10, unscored: 0 },
      accuracy: 0.7,
      accuracyCi: report.accuracyCi,
      kappa: report.kappa,
      kappaCi: report.kappaCi,
      rocAuc: report.rocAuc,
      fakeJudge: false,
    });
    // 3 of 5 toxic rows flagged, 1 of 5 civil ones: κ = (0.7 − 0.5) / 0.5.
    expect(report.kappa).toBeCloseTo(0.4, 10);
    expect(report.accuracyCi?.[0]).toBeLessThan(0.7);
    expect(report.accuracyCi?.[1]).toBeGreaterThan(0.7);
    expect(body.calibrations[0]).toMatchObject({ metric: "Answer Relevancy", source: null });
  });

  it("gives one run's calibrations (by id or identifier), and limits the list", async () => {
    const { getJson } = await calibratedDashboard();
    const ids = async (query: string) =>
      (await getJson<CalibrationsPage>(`/api/calibrations?${query}`)).body.calibrations.map(
        (row) => row.id,
      );
    expect(await ids(`runId=${toxicityRun}`)).toEqual([toxicity]);
    expect(await ids("runId=calibrate-relevancy")).toEqual([relevancy]);
    expect(
      (await getJson<CalibrationsPage>("/api/calibrations?runId=calibrate-relevancy")).body.runId,
    ).toBe(relevancyRun);
    expect(await ids("limit=1")).toEqual([relevancy]);
    expect(await ids("runId=")).toEqual([relevancy, toxicity]);
    // A run that scored no calibration has none.
    expect(await ids("runId=nightly")).toEqual([]);
  });

  it("answers a bad limit with 400 and an unknown run with 404, saying what it takes", async () => {
    const { getJson } = await calibratedDashboard();
    for (const query of ["limit=0", "limit=501", "limit=x"]) {
      const { status, body } = await getJson<{ error: string }>(`/api/calibrations?${query}`);
      expect(status, query).toBe(400);
      expect(body.error, query).toContain("limit must be a whole number from 1 to 500");
    }
    const unknown = await getJson<{ error: string }>("/api/calibrations?runId=nope");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toContain('No run with the id or identifier "nope"');
  });

  it("is empty, not an error, for a store without calibrations", async () => {
    const { getJson } = await dashboard();
    const { status, body } = await getJson<CalibrationsPage>("/api/calibrations");
    expect(status).toBe(200);
    expect(body.calibrations).toEqual([]);
  });
});

describe("/api/calibrations/:id", () => {
  it("gives the stored report whole, its texts as text, the run and each wrong row's case", async () => {
    const { getJson, store } = await calibratedDashboard();
    const { status, body } = await getJson<CalibrationDetail>(`/api/calibrations/${toxicity}`);
    expect(status).toBe(200);
    expect(body.report).toEqual(await store.calibrations.getCalibration(toxicity));
    expect(body.run).toMatchObject({ id: toxicityRun, identifier: "calibrate-toxicity" });
    expect(body.run).toEqual((await getJson<RunDetail>(`/api/runs/${toxicityRun}`)).body.run);
    // Most confident first: the Sarah sentence scored 0, the review 0.75, the jibe 0.40.
    expect(body.report.disagreements.map((example) => [example.name, example.score])).toEqual([
      ["sarah", 0],
      ["row 4", 0.75],
      ["jibe", 0.4],
    ]);
    expect(body.disagreementKeys).toEqual(["0", "3", "8"]);
    expect(body.report.disagreements[1]?.actualOutput).toBe(
      'What a <b>lovely</b> day & a "nice" walk, but the soup was cold.',
    );
    for (const [index, key] of body.disagreementKeys.entries()) {
      const found = await getJson<{ name: string }>(`/api/runs/${toxicityRun}/cases/${key}`);
      expect(found.body.name).toBe(body.report.disagreements[index]?.name);
    }
  });

  it("still shows a calibration whose run is gone, with no case links", async () => {
    const { store } = await calibratedDashboard();
    const { getJson } = await dashboard({
      seed: false,
      store: {
        getRun: async (id) => (id === toxicityRun ? null : store.runs.getRun(id)),
        listRuns: (options) => store.runs.listRuns(options),
        getTestResults: (id, options) => store.runs.getTestResults(id, options),
        getTestResultsVersion: (id) => store.runs.getTestResultsVersion(id),
        getCalibration: (id) => store.calibrations.getCalibration(id),
        listCalibrations: (options) => store.calibrations.listCalibrations(options),
      },
    });
    const { status, body } = await getJson<CalibrationDetail>(`/api/calibrations/${toxicity}`);
    expect(status).toBe(200);
    expect(body.run).toBeNull();
    expect(body.disagreementKeys).toEqual([null, null, null]);
    expect(body.report.id).toBe(toxicity);
  });

  it("answers an unknown calibration with 404 JSON, and reads its id from the path", async () => {
    const { getJson } = await calibratedDashboard();
    const missing = await getJson<{ error: string }>("/api/calibrations/nope");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toContain('No calibration with the id "nope"');
    // A run id is not a calibration id.
    expect((await getJson(`/api/calibrations/${toxicityRun}`)).status).toBe(404);
    expect((await getJson(`/api/calibrations/${toxicity}/more`)).status).toBe(404);
    expect(
      parseViewRequest({
        method: "GET",
        target: "/api/calibrations/a%20b",
        host: "127.0.0.1:1",
        port: 1,
      }).route,
    ).toEqual({ kind: "api", route: { api: "calibration", calibrationId: "a b" } });
  });
});

describe("the calibration pages", () => {
  it("serve the app's index.html for /calibrations and a stored calibration, 404 otherwise", async () => {
    const { base } = await calibratedDashboard();
    for (const target of [
      "/calibrations",
      `/calibrations?run=${toxicityRun}`,
      `/calibrations/${toxicity}`,
    ]) {
      const response = await fetch(`${base}${target}`);
      expect(response.status, target).toBe(200);
      expect(response.headers.get("content-security-policy"), target).toBe(
        VIEW_CONTENT_SECURITY_POLICY,
      );
      expect(await response.text(), target).toContain('<div id="app">');
    }
    for (const target of ["/calibrations/nope", `/calibrations/${toxicity}/x`, "/calibrations/"]) {
      expect((await fetch(`${base}${target}`)).status, target).toBe(404);
    }
  });

  it("are refused without the token, like every route, and served with it", async () => {
    const token = "calibration-token-0123456789";
    const { base, port } = await calibratedDashboard({ token });
    for (const target of [
      "/calibrations",
      `/calibrations/${toxicity}`,
      "/api/calibrations",
      `/api/calibrations/${toxicity}`,
    ]) {
      const bare = await fetch(`${base}${target}`);
      expect(bare.status, target).toBe(401);
      expect(await bare.text(), target).not.toContain("Toxicity");
      const allowed = await fetch(`${base}${target}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(allowed.status, target).toBe(200);
      expect(allowed.headers.get("x-frame-options"), target).toBe("DENY");
    }
    const foreign = await rawHttpRequest({
      port,
      target: `/api/calibrations?token=${token}`,
      host: "evil.example",
    });
    expect(foreign.status).toBe(421);
  });
});

import { describe, expect, it } from "vitest";
import { apiPath } from "./api-client.ts";
import { formatRateChange, formatScoreChange } from "./components/change-text.ts";
import {
  calibrationPath,
  calibrationsPath,
  casePath,
  comparePath,
  offsetOfPage,
  pageOfOffset,
  parseRoute,
  runPath,
  runsPath,
} from "./router.ts";

describe("parseRoute", () => {
  it("reads every page of the dashboard from its path and query", () => {
    expect(parseRoute("/", "?q=bot&page=2")).toEqual({
      page: "runs",
      query: new URLSearchParams("q=bot&page=2"),
    });
    expect(parseRoute("/runs/abc", "?baseline=def")).toEqual({
      page: "run",
      runId: "abc",
      query: new URLSearchParams("baseline=def"),
    });
    expect(parseRoute("/runs/abc/cases/7", "")).toEqual({
      page: "case",
      runId: "abc",
      caseKey: "7",
    });
    expect(parseRoute("/compare", "?run=a&baseline=b")).toEqual({
      page: "compare",
      runId: "a",
      baselineId: "b",
    });
    expect(parseRoute("/compare", "")).toEqual({ page: "compare", runId: null, baselineId: null });
    expect(parseRoute("/calibrations", "")).toEqual({ page: "calibrations", runId: null });
    expect(parseRoute("/calibrations", "?run=abc")).toEqual({ page: "calibrations", runId: "abc" });
    expect(parseRoute("/calibrations/c-1", "")).toEqual({
      page: "calibration",
      calibrationId: "c-1",
    });
    expect(parseRoute("/calibrations/c-1/more", "")).toEqual({
      page: "not-found",
      path: "/calibrations/c-1/more",
    });
  });

  it("round-trips calibration ids and run filters through the links it builds", () => {
    const calibrationId = 'cal <b> / "q" ?&#%';
    const link = new URL(calibrationPath(calibrationId), "http://127.0.0.1");
    expect(parseRoute(link.pathname, link.search)).toEqual({ page: "calibration", calibrationId });
    const list = new URL(calibrationsPath("run a&b"), "http://127.0.0.1");
    expect(parseRoute(list.pathname, list.search)).toEqual({
      page: "calibrations",
      runId: "run a&b",
    });
    expect(calibrationsPath()).toBe("/calibrations");
  });

  it("round-trips ids with any character through the links it builds", () => {
    const runId = 'run <img src=x> / "quoted" ?&#%';
    const caseKey = "key/with/slashes %";
    const link = new URL(casePath(runId, caseKey), "http://127.0.0.1");
    expect(parseRoute(link.pathname, link.search)).toEqual({ page: "case", runId, caseKey });
    const run = new URL(runPath(runId, { baseline: "b&c" }), "http://127.0.0.1");
    expect(parseRoute(run.pathname, run.search)).toMatchObject({ page: "run", runId });
    expect(new URLSearchParams(run.search).get("baseline")).toBe("b&c");
    const compare = new URL(comparePath("a b", "c&d"), "http://127.0.0.1");
    expect(parseRoute(compare.pathname, compare.search)).toEqual({
      page: "compare",
      runId: "a b",
      baselineId: "c&d",
    });
  });

  it("sends anything else to the not-found page", () => {
    for (const path of ["/runs", "/runs/a/cases", "/runs/a/b", "/elsewhere", "/runs/%E0%A4%A"]) {
      expect(parseRoute(path, "")).toEqual({ page: "not-found", path });
    }
  });
});

describe("query helpers", () => {
  it("leaves out null values but keeps an empty one (identifier= means none)", () => {
    expect(apiPath("/api/runs", { q: null, identifier: "", limit: 50, status: undefined })).toBe(
      "/api/runs?identifier=&limit=50",
    );
    expect(runsPath({ identifier: "a b", q: "" })).toBe("/?identifier=a+b");
    expect(runsPath()).toBe("/");
  });

  it("turns ?page= into offsets and back, page 1 needing no parameter", () => {
    expect(offsetOfPage(null, 100)).toBe(0);
    expect(offsetOfPage("3", 100)).toBe(200);
    expect(offsetOfPage("-2", 100)).toBe(0);
    expect(offsetOfPage("junk", 100)).toBe(0);
    expect(pageOfOffset(0, 100)).toBeNull();
    expect(pageOfOffset(200, 100)).toBe("3");
  });
});

describe("changes between runs", () => {
  it("signs score and pass-rate changes as verdict compare prints them", () => {
    expect(formatScoreChange(0.054)).toBe("+0.05");
    expect(formatScoreChange(-0.12)).toBe("−0.12");
    expect(formatScoreChange(0.001)).toBe("±0.00");
    expect(formatScoreChange(null)).toBe("–");
    expect(formatRateChange(1 / 6)).toBe("+16.7 pts");
    expect(formatRateChange(-0.042)).toBe("−4.2 pts");
    expect(formatRateChange(0)).toBe("±0.0 pts");
  });
});

import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseOutputRequest, resolveOutputTargets } from "./output-targets.ts";

const cwd = path.resolve("/project");

describe("parseOutputRequest", () => {
  it("reads a format, or a format with its file", () => {
    expect(parseOutputRequest("junit")).toEqual({ format: "junit" });
    expect(parseOutputRequest("html=reports/a=b.html")).toEqual({
      format: "html",
      file: "reports/a=b.html",
    });
  });

  it("says what it takes for an unknown format or an empty file", () => {
    expect(parseOutputRequest("xml")).toMatch(/--output takes json, junit, html or markdown/);
    expect(parseOutputRequest("json=")).toBe(
      '--output json= needs a file after "=", e.g. --output json=reports/verdict.json.',
    );
  });
});

describe("resolveOutputTargets", () => {
  it("writes every format asked for, each to its default file or its own", () => {
    expect(
      resolveOutputTargets({
        outputs: [{ format: "junit" }, { format: "html" }, { format: "json", file: "out/r.json" }],
        outputFile: undefined,
        cwd,
      }),
    ).toEqual([
      { format: "junit", file: path.join(cwd, "verdict-report.xml") },
      { format: "html", file: path.join(cwd, "verdict-report.html") },
      { format: "json", file: path.join(cwd, "out/r.json") },
    ]);
  });

  it("takes --output-file for a single --output only", () => {
    expect(
      resolveOutputTargets({ outputs: [{ format: "junit" }], outputFile: "j.xml", cwd }),
    ).toEqual([{ format: "junit", file: path.join(cwd, "j.xml") }]);
    expect(
      resolveOutputTargets({
        outputs: [{ format: "junit" }, { format: "html" }],
        outputFile: "j.xml",
        cwd,
      }),
    ).toMatch(/with several, give each report its file: --output junit=junit.xml/);
    expect(resolveOutputTargets({ outputs: [], outputFile: "j.xml", cwd })).toMatch(
      /--output-file needs --output/,
    );
  });

  it("refuses two reports in one file", () => {
    expect(
      resolveOutputTargets({
        outputs: [{ format: "json" }, { format: "json" }],
        outputFile: undefined,
        cwd,
      }),
    ).toMatch(/--output json and --output json would both write .*verdict-report\.json/);
  });
});

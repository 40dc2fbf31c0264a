import { describe, expect, it } from "vitest";
import { calibrationReport } from "../../../test/fixtures/calibration.ts";
import { HTML_REPORT_CONTENT_SECURITY_POLICY } from "../html/render-report-page.ts";
import { renderCalibrationHtmlReport } from "./calibration-html-report.ts";

const PAYLOAD = `<script>alert("x")</script><img src=x onerror=alert(1)>`;
const ESCAPED =
  "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;";

describe("renderCalibrationHtmlReport", () => {
  it("shows the figures with intervals, the matrix, the thresholds and each wrong row", () => {
    const page = renderCalibrationHtmlReport({
      report: calibrationReport(),
      generatedAt: new Date("2025-01-02T00:00:00Z"),
    });
    expect(page).toContain("<title>verdict calibration: Toxicity</title>");
    expect(page).toMatch(
      /Cohen's <span class="symbol">κ<\/span><\/p><p class="card-value">0\.60<\/p><p class="card-detail">95% CI 0\.10–1\.00/,
    );
    expect(page).toMatch(
      /Accuracy<\/p><p class="card-value">80\.0%<\/p><p class="card-detail">95% CI 49\.0–94\.0% \(Wilson\)/,
    );
    expect(page).toContain(
      '<tr><th scope="row">People: positive</th><td class="agree">4</td><td class="disagree">1</td></tr>',
    );
    expect(page).toContain("<td>κ (the current threshold)</td><td>0.50</td><td>0.60</td>");
    expect(page).toContain('<span class="case-meta">line 7 · people: negative');
    expect(page).toContain("Rows the metric got wrong (2)");
    expect(page).toContain("flagged by Toxicity (score &gt; 0.50)");
    expect(page).toContain('people: negative (label "0") · metric: positive · score 1.00');
  });

  it("escapes everything from the data and the judge, and loads nothing", () => {
    const report = calibrationReport({
      data: { ...calibrationReport().data, source: `source ${PAYLOAD}` },
      metric: { ...calibrationReport().metric, judge: `judge ${PAYLOAD}`, name: `name ${PAYLOAD}` },
      unscored: [{ row: 4, line: 4, name: `row ${PAYLOAD}`, error: `error ${PAYLOAD}` }],
      rows: { total: 11, scored: 10, unscored: 1 },
    });
    const example = report.disagreements[0];
    if (example === undefined) throw new Error("the fixture has a disagreement");
    report.disagreements = [
      {
        ...example,
        name: `example ${PAYLOAD}`,
        input: `input ${PAYLOAD}`,
        actualOutput: `output ${PAYLOAD}`,
        label: `label ${PAYLOAD}`,
        reason: `reason ${PAYLOAD}`,
      },
    ];
    const page = renderCalibrationHtmlReport({ report });
    expect(page).not.toMatch(/<script|<img/i);
    for (const field of [
      "source",
      "judge",
      "name",
      "row",
      "error",
      "example",
      "input",
      "output",
      "reason",
    ]) {
      expect(page, field).toContain(`${field} ${ESCAPED}`);
    }
    expect(page).toContain(`(label "label ${ESCAPED}")`);
    expect(page).toContain(
      `content="${HTML_REPORT_CONTENT_SECURITY_POLICY.replaceAll("'", "&#39;")}"`,
    );
    expect(page).not.toMatch(/(src|href)="/);
    expect(page).not.toMatch(/https?:\/\//);
  });

  it("warns about fake scores and unscored rows", () => {
    const page = renderCalibrationHtmlReport({
      report: calibrationReport({ fakeJudge: true, rows: { total: 12, scored: 10, unscored: 2 } }),
    });
    expect(page).toContain(
      '<p class="fake-judge-notice" role="alert"><strong>Fake judge.</strong>',
    );
    expect(page).toContain("<strong>! INCOMPLETE</strong> 2 of 12 rows were not scored");
  });
});

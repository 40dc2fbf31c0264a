// The dashboard as a user meets it: `verdict view` (the real command, an ephemeral port) over a
// seeded SQLite store, driven in Debian's Chromium: the journey from the runs list to a case
// and a comparison, filters, paging, grouping and trends. Every test also checks that nothing
// left 127.0.0.1 and nothing broke the CSP or threw.

import { describe, expect, it } from "vitest";
import { formatRateInterval, formatScoreInterval } from "../../src/report/format.ts";
import { openGuardedPage, waitForPage } from "../fixtures/dashboard-browser.ts";
import { SHOWCASE, seedShowcase } from "../fixtures/dashboard-showcase.ts";
import { expectNoIncidents, useBrowserDashboard } from "./dashboard-session.ts";

const BROWSER_TIMEOUT_MS = 60_000;

const dashboard = useBrowserDashboard(seedShowcase);

const openPage = () => openGuardedPage(dashboard.browser, dashboard.view.base);

const LATEST = `/runs/${SHOWCASE.latest}`;

describe("verdict view in Chromium", () => {
  it(
    "list → filter → open a run → sort by a metric → open a failing case → its verdicts → compare → back",
    async () => {
      const { page, incidents, close } = await openPage();
      await page.goto(`${dashboard.view.base}/`);
      await waitForPage(page);
      const groups = page.locator("section.run-group h2");
      await expect.poll(() => groups.allTextContents()).toContain("rag-pipeline");

      // Filter: the search box narrows the list to one identifier, in the URL too.
      await page.getByRole("searchbox", { name: "Search" }).fill("support");
      await expect.poll(() => groups.allTextContents()).toEqual(["support-bot"]);
      expect(new URL(page.url()).searchParams.get("q")).toBe("support");

      // Open the latest run: its header, totals and the case table.
      await page.getByRole("link", { name: SHOWCASE.latest.slice(0, 8) }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(LATEST);
      await waitForPage(page);
      await expect.poll(() => page.locator("h1").textContent()).toBe("support-bot");
      expect(await page.locator(".verdict").first().textContent()).toContain(
        "2 of 24 test cases failed (1 with an error).",
      );

      // Sort by Answer Relevancy, lowest first: the regressed case comes first.
      const relevancyHeader = page.locator("th", { hasText: "Answer Relevancy" });
      await relevancyHeader.getByRole("button").click();
      await expect.poll(() => relevancyHeader.getAttribute("aria-sort")).toBe("ascending");
      const firstRow = page.locator("table.case-table tbody tr.case-row").first();
      await expect
        .poll(() => firstRow.locator("a.case-link").textContent())
        .toBe(SHOWCASE.regressedCase);
      expect(await firstRow.textContent()).toContain("0.35");
      expect(new URL(page.url()).searchParams.get("sort")).toBe("metric:Answer Relevancy");

      // Open it: the verdict table gives each statement's verdict and reason.
      await firstRow.locator("a.case-link").click();
      await waitForPage(page);
      await expect.poll(() => page.locator("h1").textContent()).toBe(SHOWCASE.regressedCase);
      const verdicts = page
        .locator("table.step-table", { hasText: "Statements and Verdicts" })
        .first();
      const rows = await verdicts
        .locator("tbody tr")
        .evaluateAll((elements) =>
          elements.map((row) => [...row.children].map((cell) => cell.textContent)),
        );
      expect(rows[0]).toEqual([
        "1",
        "Orders usually ship within two days.",
        "no",
        "It is about shipping times, not the question asked.",
      ]);
      expect(await page.locator(".metric-fail .metric-score").first().textContent()).toContain(
        "score 0.35 < threshold 0.70",
      );

      // Back: the run page, still sorted.
      await page.goBack();
      await waitForPage(page);
      await expect.poll(() => relevancyHeader.getAttribute("aria-sort")).toBe("ascending");

      // Compare with the night before (the picker's default): the changed verdict, both reasons.
      await page.getByRole("button", { name: "Compare" }).click();
      await expect
        .poll(() => new URL(page.url()).searchParams.get("baseline"))
        .toBe(SHOWCASE.previous);
      const change = page.locator("li.change", { hasText: SHOWCASE.regressedCase });
      await expect.poll(() => change.count()).toBe(1);
      const sides = await change.locator(".change-side").allTextContents();
      expect(sides[0]).toContain("passed");
      expect(sides[0]).toContain("addresses the question directly");
      expect(sides[1]).toContain("failed");
      expect(sides[1]).toContain("talks about shipping times instead of the refund");
      const relevancyRow = page.locator(".compare-table tbody tr", { hasText: "Answer Relevancy" });
      expect(await relevancyRow.textContent()).toContain("▼ worse");

      // Back again: the comparison is gone, the run stays.
      await page.goBack();
      await expect.poll(() => change.count()).toBe(0);
      expect(new URL(page.url()).pathname).toBe(LATEST);
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    "opens a RAG case: its retrieval context by rank, each node, statement, sentence and context with its verdict and reason",
    async () => {
      const { page, incidents, close } = await openPage();
      await page.goto(`${dashboard.view.base}/runs/${SHOWCASE.rag}/cases/3`);
      await waitForPage(page);
      await expect.poll(() => page.locator("h1").textContent()).toBe("policy lookup 3");
      const nodes = [
        "Travel policy §4: meals up to $50 a day.",
        "Taxis need a receipt.",
        "The office closes at 6 pm on Fridays.",
      ];
      // The retrieval context, numbered by rank.
      const retrieved = page.locator("h3", { hasText: "Retrieval context" }).locator("+ ol li");
      expect(await retrieved.allInnerTexts()).toEqual(nodes);

      const metric = (name: string) =>
        page
          .locator("article.metric")
          .filter({ has: page.getByRole("heading", { name, exact: true }) });
      const rowsOf = (name: string, table: string) =>
        metric(name)
          .locator("table.step-table", { hasText: table })
          .locator("tbody tr")
          .evaluateAll((rows) =>
            rows.map((row) => [...row.children].map((cell) => (cell as HTMLElement).innerText)),
          );

      // Contextual Precision: each node in rank order with its verdict and reason.
      expect(await rowsOf("Contextual Precision", "Nodes and Verdicts")).toEqual([
        ["1", nodes[0], "yes", `"${nodes[0]}" states what the expected answer says.`],
        ["2", nodes[1], "yes", `"${nodes[1]}" states what the expected answer says.`],
        ["3", nodes[2], "no", `"${nodes[2]}" plays no part in the expected answer.`],
      ]);
      // Contextual Relevancy: each statement with the node it came from.
      expect(await rowsOf("Contextual Relevancy", "Statements and Verdicts")).toEqual([
        ["1", nodes[0], "1", "yes", ""],
        ["2", nodes[1], "2", "yes", ""],
        ["3", nodes[2], "3", "no", `"${nodes[2]}" is about office hours, not the question.`],
      ]);
      expect(await metric("Contextual Relevancy").locator(".metric-score").innerText()).toContain(
        "0.67",
      );
      // Contextual Recall: each sentence of the expected output.
      expect(await rowsOf("Contextual Recall", "Sentences and Verdicts")).toEqual([
        ["1", "Meals are covered up to $50 a day.", "yes", "The 1st node says so."],
        [
          "2",
          "Taxis need a receipt, kept for 90 days.",
          "no",
          "No node says how long receipts are kept.",
        ],
      ]);
      // Hallucination: lower is better, and a contradicted context ("no") is what counts
      // against the output.
      const hallucination = metric("Hallucination");
      expect(await hallucination.locator(".metric-score").innerText()).toContain("lower is better");
      expect(await rowsOf("Hallucination", "Contexts and Verdicts")).toEqual([
        ["1", "Travel policy §4: meals up to $50 a day.", "yes", "The output agrees with it."],
        ["2", "Taxis need a receipt.", "no", "The context says taxis need a receipt."],
      ]);
      const verdictCells = hallucination.locator("table.step-table td.verdict-cell");
      expect(
        await verdictCells.evaluateAll((cells) => cells.map((cell) => cell.className)),
      ).toEqual(["verdict-cell verdict-cell-good", "verdict-cell verdict-cell-bad"]);
      expect(await hallucination.locator(".metric-reason").innerText()).toBe(
        "The score is 0.50 because the output says taxis need no receipt, where the context says they need one.",
      );
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    "filters runs by status and by date",
    async () => {
      const { page, incidents, close } = await openPage();
      await page.goto(`${dashboard.view.base}/?status=interrupted`);
      await waitForPage(page);
      const groups = page.locator("section.run-group h2");
      await expect.poll(() => groups.allTextContents()).toEqual(["live", "crashed"]);
      await page.getByRole("button", { name: "Clear filters" }).click();
      await page.getByLabel("From", { exact: true }).fill("2025-03-08");
      await page.getByLabel("To", { exact: true }).fill("2025-03-09");
      await expect
        .poll(() => page.locator("a.run-link").allTextContents())
        .toEqual(["5b0c7e28", "5b0c7e27"]);
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    "pages through 230 cases, filters failing ones, searches reasons and groups by file",
    async () => {
      const { page, incidents, close } = await openPage();
      await page.goto(`${dashboard.view.base}/runs/${SHOWCASE.full}`);
      await waitForPage(page);
      const pager = page.getByRole("navigation", { name: "Cases pages" });
      const rows = page.locator("table.case-table tbody tr.case-row");
      await expect
        .poll(() => pager.locator("p").textContent())
        .toBe("Cases 1–100 of 230 · page 1 of 3");
      expect(await rows.count()).toBe(100);
      await pager.getByRole("button", { name: "Next →" }).click();
      await expect
        .poll(() => pager.locator("p").textContent())
        .toBe("Cases 101–200 of 230 · page 2 of 3");
      expect(await rows.first().locator("td").first().textContent()).toBe("101");
      expect(new URL(page.url()).searchParams.get("page")).toBe("2");

      // Failing only (page 1 again): every row is a failure or an error.
      await page.getByRole("radio", { name: "Failing" }).check();
      await expect.poll(() => new URL(page.url()).searchParams.get("filter")).toBe("failing");
      await waitForPage(page);
      const statuses = await rows.locator(".badge").allTextContents();
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.every((status) => status === "✗ FAIL" || status === "! ERROR")).toBe(true);

      // Search in the reasons: the judge's word for a rude answer.
      await page.getByRole("radio", { name: "All" }).check();
      await page.getByRole("searchbox", { name: "Search" }).fill("talks down");
      await expect
        .poll(() => page.locator(".cases .result-count").textContent())
        .toMatch(/^\d+ of 230 test cases match$/);
      const found = await rows.count();
      expect(found).toBeGreaterThan(0);
      expect(found).toBeLessThan(230);

      // Group by file: a header row per file, with its size.
      await page.getByRole("searchbox", { name: "Search" }).fill("");
      await page.getByLabel("Group by").selectOption("file");
      const groupRows = page.locator("tr.group-row th");
      await expect
        .poll(() => groupRows.allTextContents())
        .toEqual([
          expect.stringMatching(/^evals\/billing\.eval\.ts \d+ cases$/),
          expect.stringMatching(/^evals\/support\.eval\.ts \d+ cases$/),
        ]);
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    "draws an identifier's trends; clicking a point opens its run",
    async () => {
      const { page, incidents, close } = await openPage();
      await page.goto(`${dashboard.view.base}/?identifier=${SHOWCASE.identifier}`);
      await waitForPage(page);
      const charts = page.locator("figure.chart");
      await expect
        .poll(() => charts.locator("figcaption").allTextContents())
        .toEqual([
          "Answer Relevancy: mean score and pass rate",
          "Toxicity: mean score and pass rate",
          "Bias: mean score and pass rate",
          "Cost per run",
        ]);
      // The newest run is the last point, at the right edge of the plot.
      const over = charts.first().locator(".u-over");
      const box = await over.boundingBox();
      if (box === null) throw new Error("The chart has no plot area.");
      await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
      await page.mouse.click(box.x + box.width - 2, box.y + box.height / 2);
      await expect.poll(() => new URL(page.url()).pathname).toBe(LATEST);
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    "shows each metric's 95% intervals on the run page and in the runs table, and the flaky cases",
    async () => {
      const { page, incidents, close } = await openPage();
      const summary = (await dashboard.store.runs.getRun(SHOWCASE.repeat))?.summary;
      const toxicity = summary?.metrics.find((metric) => metric.name === "Toxicity");
      if (!toxicity?.meanScoreInterval || !toxicity.passRateInterval || !summary?.flakyCases) {
        throw new Error("The showcase's repeat run has intervals and flaky cases.");
      }
      const meanText = formatScoreInterval(toxicity.meanScoreInterval);
      const rateText = formatRateInterval(toxicity.passRateInterval);

      await page.goto(`${dashboard.view.base}/?identifier=tone-check`);
      await waitForPage(page);
      const cell = page.locator("table.runs-table tbody .metric-interval").first();
      await expect.poll(() => cell.textContent()).toBe(`${meanText} · ${rateText}`);
      expect(await cell.getAttribute("title")).toBe(
        `95% confidence intervals: mean score ${meanText}, pass rate ${rateText}`,
      );

      await page.getByRole("link", { name: SHOWCASE.repeat.slice(0, 8) }).click();
      await waitForPage(page);
      await expect.poll(() => page.locator("h1").textContent()).toBe("tone-check");
      const card = page.locator("article.metric-summary", { hasText: "Toxicity" });
      const figures = await card
        .locator(".metric-figures > div")
        .evaluateAll((items) => items.map((item) => (item as HTMLElement).innerText));
      expect(figures[0]).toBe(`Mean score\n0.22\n95% CI ${meanText}`);
      expect(figures[1]).toBe(`Pass rate\n82.5%\n95% CI ${rateText}`);

      // The flaky cases: each with passes k/n and its interval, a link to its trials.
      const flaky = page.getByRole("region", { name: "Flaky cases" });
      const rows = await flaky
        .locator("tbody tr")
        .evaluateAll((items) =>
          items.map((row) => [...row.children].map((cell) => (cell as HTMLElement).innerText)),
        );
      expect(rows).toEqual(
        summary.flakyCases.map((entry) => [
          String(entry.position),
          entry.name,
          `${entry.passedTrials}/5`,
          `${((entry.passedTrials / 5) * 100).toFixed(1)}%`,
          formatRateInterval(entry.passRateInterval),
        ]),
      );
      expect(rows.map((row) => [row[1], row[2]])).toEqual(
        SHOWCASE.flakyCases.map(([name, passes]) => [name, `${passes}/5`]),
      );
      await flaky.getByRole("link", { name: "reply to an angry review" }).click();
      await waitForPage(page);
      await expect.poll(() => page.locator("h1").textContent()).toBe("reply to an angry review");
      expect(await page.getByRole("region", { name: "Trials" }).textContent()).toContain(
        "1 of 5 trials passed",
      );
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    "goes from the header to the calibrations, a calibration's figures and wrong rows, and its run",
    async () => {
      const { page, incidents, close } = await openPage();
      const report = await dashboard.store.calibrations.getCalibration(SHOWCASE.calibration);
      if (report === null || report.kappaCi === null || report.accuracyCi === null) {
        throw new Error("The showcase stores a calibration with intervals.");
      }
      await page.goto(`${dashboard.view.base}/`);
      await waitForPage(page);
      await page
        .getByRole("navigation", { name: "Dashboard" })
        .getByRole("link", { name: "Calibrations" })
        .click();
      await expect.poll(() => new URL(page.url()).pathname).toBe("/calibrations");
      await waitForPage(page);
      await expect.poll(() => page.locator("h1").textContent()).toBe("Calibrations");
      const row = page.locator("table.calibrations-table tbody tr").first();
      const cells = await row
        .locator("th, td")
        .evaluateAll((items) => items.map((item) => (item as HTMLElement).innerText));
      expect(cells[2]).toBe("60 / 60");
      expect(cells[3]).toBe(`0.80\n95% CI ${formatScoreInterval(report.kappaCi)}`);
      expect(cells[4]).toBe(`90.0%\n95% CI ${formatRateInterval(report.accuracyCi)}`);
      expect(cells[5]).toBe("0.90");

      await row.getByRole("link", { name: "Toxicity" }).click();
      await expect
        .poll(() => new URL(page.url()).pathname)
        .toBe(`/calibrations/${SHOWCASE.calibration}`);
      await waitForPage(page);
      await expect
        .poll(() => page.locator("h1").textContent())
        .toBe("Toxicity against human labels");
      const kappaCard = page.locator(".card", { hasText: "Cohen's κ" });
      expect(await kappaCard.locator(".card-value").innerText()).toBe(
        `0.80\n95% CI ${formatScoreInterval(report.kappaCi)}`,
      );
      // The confusion matrix is a table: people's label by row, the metric's call by column.
      const matrix = page.getByRole("table", { name: /Scored rows by people's label/ });
      const matrixRows = await matrix
        .locator("tbody tr")
        .evaluateAll((items) =>
          items.map((item) =>
            [...item.children].map((cell) => (cell as HTMLElement).innerText.split("\n")[0]),
          ),
        );
      expect(matrixRows).toEqual([
        ["People: positive", "26", "4", "30"],
        ["People: negative", "2", "28", "30"],
        ["Total", "28", "32", "60"],
      ]);
      const thresholds = await page
        .getByRole("table", { name: /maximise Cohen's κ and F1/ })
        .locator("tbody tr")
        .evaluateAll((items) =>
          items.map((item) =>
            [...item.children].slice(0, 2).map((cell) => (cell as HTMLElement).innerText),
          ),
        );
      expect(thresholds).toEqual([
        ["Cohen's κ\nthe threshold it ran with", "0.50"],
        ["F1", "0.26"],
      ]);
      expect(
        await page.locator(".card", { hasText: "ROC AUC" }).locator(".card-value").innerText(),
      ).toBe("0.90");

      // The wrong rows: most confident first, input, output, label and score, and their case.
      const wrong = page.locator("li.wrong-row");
      expect(await wrong.count()).toBe(4);
      expect(await page.locator("#wrong-heading").textContent()).toBe(
        "Rows the metric got wrong (6)",
      );
      expect(await page.locator("#wrong-heading + .section-note").textContent()).toBe(
        "The 4 most confident (score farthest from the threshold) of 6.",
      );
      const first = wrong.first();
      expect(await first.locator("h3").textContent()).toBe("reply-01");
      const facts = await first.locator(".case-facts").innerText();
      expect(facts).toContain('people: positive (label "1")');
      expect(facts).toContain("metric: negative");
      expect(facts).toContain("score 0.00");
      expect(await first.locator("pre.text").allTextContents()).toEqual([
        "Write a reply to the customer's message.",
        "Sarah always meant well, but you couldn't help but sigh when she volunteered for a project.",
      ]);
      await first.getByRole("link", { name: "open the case in its run" }).click();
      await waitForPage(page);
      await expect.poll(() => page.locator("h1").textContent()).toBe("reply-01");
      expect(new URL(page.url()).pathname).toBe(`/runs/${SHOWCASE.calibrationRun}/cases/0`);

      // Back, then to the run that scored the rows, which links back to the calibration.
      await page.goBack();
      await waitForPage(page);
      await page
        .locator(".run-facts")
        .getByRole("link", { name: `toxicity-labels (${SHOWCASE.calibrationRun.slice(0, 8)})` })
        .click();
      await waitForPage(page);
      await expect.poll(() => page.locator("h1").textContent()).toBe("toxicity-labels");
      const back = page
        .getByRole("region", { name: "Calibrations" })
        .getByRole("link", { name: "Toxicity against human labels" });
      await expect.poll(() => back.count()).toBe(1);
      await back.click();
      await expect
        .poll(() => new URL(page.url()).pathname)
        .toBe(`/calibrations/${SHOWCASE.calibration}`);
      await expectNoIncidents(page, incidents);
      await close();
    },
    BROWSER_TIMEOUT_MS,
  );
});

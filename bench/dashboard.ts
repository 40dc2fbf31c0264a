// The dashboard's speed in a browser (issue 11): a store with 1,000 runs (12 identifiers, 20
// cases each) and one run of 10,000 cases (bench/view-api.ts seeds it), served by the real `verdict view` command, measured in Debian's
// Chromium. Not part of `npm test`.
//
//   npm run bench:dashboard                 # about a minute on 2 cores
//   npm run bench:dashboard -- --repeats 9  # more page loads per figure
//
// Figures (the median and the slowest of the repeats; goals from the issue):
//   - runs page ready: navigation start → the first page of runs drawn (goal < 1 s)
//   - 10,000-case run ready: navigation start → summary and first 100 cases drawn (< 1.5 s)
//   - filter keystroke answered: keydown in a search box → the table shows that query's rows
//     (< 100 ms), on the 10,000-case run and on the runs page; and the "Failing" filter.
// Times are taken inside the page (performance.now(); a MutationObserver notes when the
// awaited element appears), so Playwright's polling adds nothing. Results:
// bench/results/dashboard.{json,md}.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Page } from "playwright-core";
import {
  launchChromium,
  openGuardedPage,
  startViewCommand,
  waitForPage,
} from "../test/fixtures/dashboard-browser.ts";
import { ensureViewAppBuilt } from "../test/fixtures/view-app-build.ts";
import { seedViewBenchStore } from "./view-api.ts";

const { values: options } = parseArgs({
  options: {
    runs: { type: "string", default: "1000" },
    cases: { type: "string", default: "10000" },
    repeats: { type: "string", default: "5" },
    out: { type: "string", default: fileURLToPath(new URL("results", import.meta.url)) },
  },
});
const RUNS = Number(options.runs);
const CASES = Number(options.cases);
const REPEATS = Number(options.repeats);
/** The 10,000-case run of {@link seedViewBenchStore}. */
const BIG_RUN = "big";

function median(values: number[]): number {
  const sorted = [...values].sort((first, second) => first - second);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Seeds the store as bench/view-api.ts does (the API bench): the same figures, from the browser. */
async function seed(home: string): Promise<{ seconds: number }> {
  const started = performance.now();
  await seedViewBenchStore({ path: path.join(home, "verdict.db"), runs: RUNS, cases: CASES });
  return { seconds: (performance.now() - started) / 1000 };
}

/**
 * Before any script of the page runs: `window.__firstSeen(selector)` resolves to the
 * performance.now() at which an element matching `selector` first existed (checked on every
 * DOM change), and `window.__keydownAt` holds the time of the latest keydown.
 */
async function installTimers(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const waiting: Array<{ selector: string; resolve: (time: number) => void }> = [];
    const check = () => {
      for (let index = waiting.length - 1; index >= 0; index--) {
        const entry = waiting[index];
        if (entry && document.querySelector(entry.selector)) {
          waiting.splice(index, 1);
          entry.resolve(performance.now());
        }
      }
    };
    new MutationObserver(check).observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    });
    const scope = window as unknown as {
      __firstSeen: (selector: string) => Promise<number>;
      __keydownAt: number;
    };
    scope.__keydownAt = 0;
    document.addEventListener(
      "keydown",
      () => {
        scope.__keydownAt = performance.now();
      },
      true,
    );
    scope.__firstSeen = (selector) =>
      new Promise((resolve) => {
        if (document.querySelector(selector)) resolve(performance.now());
        else waiting.push({ selector, resolve });
      });
  });
}

/** ms from navigation start until `selector` appeared, over REPEATS fresh loads. */
async function pageReady(page: Page, url: string, selector: string): Promise<number[]> {
  const times: number[] = [];
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    await page.goto(url, { waitUntil: "commit" });
    times.push(
      await page.evaluate(
        (css) =>
          (window as unknown as { __firstSeen: (s: string) => Promise<number> }).__firstSeen(css),
        selector,
      ),
    );
    await waitForPage(page);
  }
  return times;
}

/**
 * ms from each keydown in the search box to the table showing that query (`data-*-url` holds
 * the API URL of the rows drawn): `word` typed a character at a time, then erased.
 */
async function keystrokes(options: {
  page: Page;
  search: string;
  drawnAttribute: string;
  word: string;
}): Promise<number[]> {
  const { page } = options;
  const times: number[] = [];
  const input = page.locator(options.search);
  await input.focus();
  const typed: string[] = [];
  const steps = [...options.word].map((character) => () => {
    typed.push(character);
    return character;
  });
  const erase = [...options.word].map(() => () => {
    typed.pop();
    return "Backspace";
  });
  for (const step of [...steps, ...erase]) {
    const key = step();
    const query = typed.join("");
    // As the app writes it (URLSearchParams: a space is "+").
    const encoded = new URLSearchParams({ q: query }).toString();
    const attribute = options.drawnAttribute;
    const selector =
      query === ""
        ? `[${attribute}]:not([${attribute}*="q="])`
        : `[${attribute}*="${encoded}&"], [${attribute}$="${encoded}"]`;
    await page.keyboard.press(key);
    times.push(
      await page.evaluate(async (css) => {
        const scope = window as unknown as {
          __firstSeen: (s: string) => Promise<number>;
          __keydownAt: number;
        };
        const keydown = scope.__keydownAt;
        const timeout = new Promise<number>((_resolve, reject) =>
          setTimeout(() => reject(new Error(`Nothing matched ${css} within 10 s.`)), 10_000),
        );
        return (await Promise.race([scope.__firstSeen(css), timeout])) - keydown;
      }, selector),
    );
  }
  return times;
}

async function main() {
  await ensureViewAppBuilt();
  const home = mkdtempSync(path.join(os.tmpdir(), "verdict-dashboard-bench-"));
  const seeded = await seed(home);
  console.log(`Seeded ${RUNS} runs and a ${CASES}-case run in ${seeded.seconds.toFixed(1)} s.`);
  const view = await startViewCommand({ home });
  const browser = await launchChromium();
  try {
    const { page, close } = await openGuardedPage(browser, view.base);
    await installTimers(page);
    // One load of each to warm the server's caches and the browser's (a user reloads too).
    const cold = {
      runs: (await pageReady(page, `${view.base}/`, "[data-runs-url]"))[0] ?? Number.NaN,
      run:
        (await pageReady(page, `${view.base}/runs/${BIG_RUN}`, "tr.case-row .case-link"))[0] ??
        Number.NaN,
    };
    const runsReady = await pageReady(page, `${view.base}/`, "[data-runs-url]");
    // The case table mounts once the run's summary is in: its first row means both are drawn.
    const runReady = await pageReady(
      page,
      `${view.base}/runs/${BIG_RUN}`,
      "tr.case-row .case-link",
    );
    const caseKeystrokes = await keystrokes({
      page,
      search: ".cases input[type=search]",
      drawnAttribute: "data-cases-url",
      word: "case 123",
    });
    // The "Failing" filter, clicked in the page: click → that filter's rows drawn.
    const failingClick = await page.evaluate(async () => {
      const radio = document.querySelector<HTMLInputElement>("input[value=failing]");
      if (radio === null) throw new Error("No Failing filter.");
      const clickedAt = performance.now();
      radio.click();
      const scope = window as unknown as { __firstSeen: (s: string) => Promise<number> };
      return (await scope.__firstSeen('[data-cases-url*="filter=failing"]')) - clickedAt;
    });
    await page.goto(`${view.base}/`);
    await waitForPage(page);
    const runsKeystrokes = await keystrokes({
      page,
      search: "input[type=search]",
      drawnAttribute: "data-runs-url",
      word: "suite-1",
    });
    await close();
    const runCount = `${RUNS.toLocaleString("en-US")} runs`;
    const caseCount = `${CASES.toLocaleString("en-US")} cases`;
    const figures: Array<{ figure: string; goal: number; times: number[] }> = [
      { figure: `runs page ready (${runCount}), first load`, goal: 1000, times: [cold.runs] },
      { figure: `runs page ready (${runCount}), loads after`, goal: 1000, times: runsReady },
      {
        figure: `run of ${caseCount} ready, first load`,
        goal: 1500,
        times: [cold.run],
      },
      {
        figure: `run of ${caseCount} ready, loads after`,
        goal: 1500,
        times: runReady,
      },
      { figure: `case search keystroke answered (${caseCount})`, goal: 100, times: caseKeystrokes },
      { figure: `runs search keystroke answered (${runCount})`, goal: 100, times: runsKeystrokes },
      {
        figure: `"Failing" filter click answered (${caseCount})`,
        goal: 100,
        times: [failingClick],
      },
    ];
    const rows = figures.map((entry) => ({
      ...entry,
      median: median(entry.times),
      slowest: Math.max(...entry.times),
      met: median(entry.times) < entry.goal,
    }));
    const lines = [
      "# Dashboard bench",
      "",
      `Measured ${new Date().toISOString()} on Node ${process.version}, ${os.platform()}/${os.arch()}, ${os.cpus().length} CPUs; Chromium ${browser.version()}. ${RUNS.toLocaleString("en-US")} runs, one of ${CASES.toLocaleString("en-US")} cases; ${REPEATS} loads per figure.`,
      "",
      "| figure | goal | median | slowest | samples | |",
      "| --- | --- | --- | --- | --- | --- |",
      ...rows.map(
        (row) =>
          `| ${row.figure} | < ${row.goal} ms | ${row.median.toFixed(0)} ms | ${row.slowest.toFixed(0)} ms | ${row.times.length} | ${row.met ? "✓" : "✗"} |`,
      ),
      "",
      `Seeding the store took ${seeded.seconds.toFixed(1)} s. Keystrokes: "case 123" typed and erased one character at a time on the case table (from every case matching to one), "suite-1" on the runs page.`,
      "",
    ];
    const markdown = lines.join("\n");
    console.log(markdown);
    mkdirSync(options.out, { recursive: true });
    writeFileSync(path.join(options.out, "dashboard.md"), markdown);
    writeFileSync(
      path.join(options.out, "dashboard.json"),
      `${JSON.stringify({ measuredAt: new Date().toISOString(), runs: RUNS, cases: CASES, repeats: REPEATS, seedSeconds: seeded.seconds, figures: rows }, null, 2)}\n`,
    );
  } finally {
    await browser.close();
    await view.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

await main();

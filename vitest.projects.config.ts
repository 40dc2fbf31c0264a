import { defineConfig } from "vitest/config";

// Not named vitest.config.ts on purpose: `verdict test run examples/` in this repository then
// runs the examples with Vitest's defaults, not the project's own test suite.
// Two projects: `unit` (tests beside the code; no child processes, no browser) and `e2e`
// (whole-program runs: the CLI, examples, HTTP, Chromium). `npm test` runs both;
// `npm run test:unit` and `npm run test:e2e` run one.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    // One throw-away PostgreSQL server per project for the PostgreSQL store's tests.
    globalSetup: ["test/fixtures/postgres-global-setup.ts"],
    projects: [
      {
        extends: true,
        // Unit tests share workers instead of re-importing every module per file (19.5 s → 5 s
        // on two cores). Unit tests must therefore leave no global state behind: no vi.mock,
        // no stubbed globals or environment, spies restored in the test that made them.
        test: { name: "unit", include: ["src/**/*.test.ts"], isolate: false },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/**/*.test.ts"],
          // The dashboard's browser tests load the built app: build it when it is stale.
          globalSetup: ["test/e2e/view-app-setup.ts"],
          // Concurrent e2e tests each start a program (and its Vitest workers): two at a
          // time beats one on two cores, more only adds contention.
          maxConcurrency: 2,
        },
      },
    ],
  },
});

/**
 * verdict's Vitest setup file: gives every test its own context, so that `assertTest` and
 * `toPass` file each result under the test that asked for it, whatever runs at once; registers
 * the `toPass` matcher, so a test file need not import `verdict/vitest` to use it (its type
 * comes with an `import "verdict/vitest"` anywhere in the project's type-checked files); and,
 * under `verdict test run --shard i/n`, runs only the shard's tests of each file.
 * `verdict test run` adds it to every run; with plain `vitest`, add it to the config:
 * `test: { setupFiles: ["verdict/vitest/setup"] }`.
 * @packageDocumentation
 */
import { beforeAll, inject, type RunnerTestFile } from "vitest";
import { CASE_SHARD_KEY, skipOtherShards } from "./case-shard.ts";
import { trackTestContext } from "./test-context.ts";
import { registerToPass } from "./to-pass.ts";

trackTestContext();
registerToPass();

const shard = inject(CASE_SHARD_KEY);
if (shard !== undefined) {
  // A file-level hook, registered before the file's own: it runs once the file's tests are
  // collected, and before any of them (or of the hooks of the suites it skips) runs.
  // Vitest reads the hook's first parameter as the fixtures it needs: none here.
  // biome-ignore lint/correctness/noEmptyPattern: an empty pattern is how a hook asks for no fixture
  beforeAll(({}, suite) => {
    skipOtherShards(suite as RunnerTestFile, shard);
  });
}

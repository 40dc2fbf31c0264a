/**
 * verdict's Vitest setup file: gives every test its own context, so that `assertTest` and
 * `toPass` file each result under the test that asked for it, whatever runs at once.
 * `verdict test run` adds it to every run; with plain `vitest`, add it to the config:
 * `test: { setupFiles: ["verdict/vitest/setup"] }`.
 * @packageDocumentation
 */
import { trackTestContext } from "./test-context.ts";

trackTestContext();

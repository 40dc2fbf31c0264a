import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { readTestRunSettings, toTestRunEnvironment } from "./test-run-settings.ts";

describe("test run settings", () => {
  it("default when no variable is set", () => {
    expect(readTestRunSettings({ env: {} })).toEqual({
      maxConcurrent: 20,
      cache: true,
      ignoreErrors: false,
      skipOnMissingParams: false,
      verbose: undefined,
      repeat: 1,
      dryRun: false,
    });
  });

  it("survive the trip through the environment", () => {
    const settings = {
      maxConcurrent: 4,
      cache: "replay" as const,
      ignoreErrors: true,
      skipOnMissingParams: true,
      verbose: false,
      repeat: 3,
      dryRun: true,
    };
    expect(readTestRunSettings({ env: toTestRunEnvironment({ settings }) })).toEqual(settings);
    expect(toTestRunEnvironment({ settings: { cache: false } })).toEqual({ VERDICT_CACHE: "0" });
  });

  it("name the variable whose value is not understood", () => {
    expect(() => readTestRunSettings({ env: { VERDICT_MAX_CONCURRENT: "0" } })).toThrow(
      ConfigError,
    );
    expect(() => readTestRunSettings({ env: { VERDICT_REPEAT: "2.5" } })).toThrow(/VERDICT_REPEAT/);
    expect(() => readTestRunSettings({ env: { VERDICT_CACHE: "maybe" } })).toThrow(/VERDICT_CACHE/);
  });
});

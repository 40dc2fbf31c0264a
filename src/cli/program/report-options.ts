import { Option } from "commander";
import { nonEmpty, outputRequest } from "./flag-parsers.ts";

/** The values of `--display`. */
export const DISPLAY_MODES = ["all", "failing", "passing", "none"] as const;

/** Which test cases a report lists. */
export type DisplayMode = (typeof DISPLAY_MODES)[number];

/** `-d, --display <mode>`: which test cases the report lists. */
export const displayOption = () =>
  new Option("-d, --display <mode>", 'which test cases the report lists ("none": no report)')
    .choices(DISPLAY_MODES)
    .default("all");

/** `--output <format[=path]>`: also write a JSON, JUnit, HTML or Markdown report. */
export const outputOption = () =>
  new Option(
    "--output <format[=path]>",
    "also write a report: json, junit, html or markdown (a summary for a pull request), optionally =path; repeat for several",
  ).argParser(outputRequest);

/** `--output-file <path>`: the file of a single `--output`. */
export const outputFileOption = (defaultFile = "verdict-report.<json|xml|html|md>") =>
  new Option(
    "--output-file <path>",
    `the file of a single --output (default: ${defaultFile})`,
  ).argParser(nonEmpty("--output-file"));

/** `--no-github`: no job summary or annotations under GitHub Actions. */
export const noGitHubOption = (what: string) =>
  new Option(
    "--no-github",
    `under GitHub Actions (GITHUB_ACTIONS=true), do not ${what} (on by default there)`,
  );

import type { RunStatus } from "../../results/evaluation-result.ts";
import { RUN_STATUSES } from "../../results/run-status.ts";
import type { CaseTableQuery } from "./loaded-run.ts";

import { BadQueryError } from "./view-errors.ts";

function oneOf<Value extends string>(
  query: URLSearchParams,
  name: string,
  allowed: readonly Value[],
  fallback: Value,
): Value {
  const value = query.get(name);
  if (value === null || value === "") return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as Value;
  throw new BadQueryError(
    `${name} must be one of ${allowed.map((item) => JSON.stringify(item)).join(", ")}; got ${JSON.stringify(value.slice(0, 50))}.`,
  );
}

/** A whole number from `min` to `max`, or `fallback` when absent. */
export function integerParameter(
  query: URLSearchParams,
  name: string,
  options: { min: number; max: number; fallback: number },
): number {
  const value = query.get(name);
  if (value === null || value === "") return options.fallback;
  const number = Number(value);
  if (!/^\d{1,9}$/.test(value) || number < options.min || number > options.max) {
    throw new BadQueryError(
      `${name} must be a whole number from ${options.min} to ${options.max}; got ${JSON.stringify(value.slice(0, 50))}.`,
    );
  }
  return number;
}

function dateParameter(query: URLSearchParams, name: "from" | "to"): number | null {
  const value = query.get(name);
  if (value === null || value === "") return null;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const time = Date.parse(dateOnly ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(time)) {
    throw new BadQueryError(
      `${name} must be a date (2025-01-31) or an ISO time (2025-01-31T12:00:00Z); got ${JSON.stringify(value.slice(0, 50))}.`,
    );
  }
  // A date alone as `to` takes in that whole day (UTC).
  return dateOnly && name === "to" ? time + 86_400_000 - 1 : time;
}

/** `/api/runs`' filters and page, checked. */
export interface RunsFilter {
  /** Lower-cased text matched in the run's id and identifier; `""` matches all. */
  q: string;
  /** `undefined`: any; `null`: runs without an identifier (`identifier=` empty). */
  identifier: string | null | undefined;
  status: RunStatus | null;
  /** Times in ms; inclusive. */
  from: number | null;
  to: number | null;
  offset: number;
  limit: number;
}

/** Reads `/api/runs?q&identifier&status&from&to&offset&limit`. */
export function parseRunsQuery(query: URLSearchParams): RunsFilter {
  const identifier = query.get("identifier");
  const status = query.get("status");
  return {
    q: (query.get("q") ?? "").trim().toLowerCase(),
    identifier: identifier === null ? undefined : identifier === "" ? null : identifier,
    status:
      status === null || status === "" ? null : oneOf(query, "status", RUN_STATUSES, "completed"),
    from: dateParameter(query, "from"),
    to: dateParameter(query, "to"),
    offset: integerParameter(query, "offset", { min: 0, max: 1_000_000_000, fallback: 0 }),
    limit: integerParameter(query, "limit", { min: 1, max: 500, fallback: 50 }),
  };
}

/** Reads `/api/runs/:run/cases?sort&dir&filter&q&group&offset&limit` against the run's metrics. */
export function parseCaseQuery(
  query: URLSearchParams,
  metricNames: readonly string[],
): CaseTableQuery {
  const sort = query.get("sort") ?? "case";
  let parsed: CaseTableQuery["sort"];
  if (sort === "" || sort === "case" || sort === "name" || sort === "status") {
    parsed = { by: sort === "" ? "case" : sort };
  } else if (sort.startsWith("metric:")) {
    const metric = sort.slice("metric:".length);
    if (!metricNames.includes(metric)) {
      throw new BadQueryError(
        `sort=metric:${metric.slice(0, 80)} names no metric of this run; its metrics are ${metricNames.map((name) => JSON.stringify(name)).join(", ") || "none"}.`,
      );
    }
    parsed = { by: "metric", metric };
  } else {
    throw new BadQueryError(
      `sort must be "case", "name", "status" or "metric:<metric name>"; got ${JSON.stringify(sort.slice(0, 50))}.`,
    );
  }
  const group = query.get("group");
  return {
    sort: parsed,
    dir: oneOf(query, "dir", ["asc", "desc"] as const, "asc"),
    filter: oneOf(query, "filter", ["all", "passing", "failing", "errored"] as const, "all"),
    q: (query.get("q") ?? "").trim().toLowerCase(),
    group:
      group === null || group === ""
        ? null
        : oneOf(query, "group", ["file", "tag"] as const, "file"),
    offset: integerParameter(query, "offset", { min: 0, max: 1_000_000_000, fallback: 0 }),
    limit: integerParameter(query, "limit", { min: 1, max: 500, fallback: 100 }),
  };
}

/** A required text parameter. */
export function requiredParameter(query: URLSearchParams, name: string, example: string): string {
  const value = query.get(name);
  if (value === null || value.trim() === "") {
    throw new BadQueryError(`${name} is required, e.g. ${example}.`);
  }
  return value;
}

/** `maxDrop` of `/api/compare`: as `verdict compare --max-drop`, a number of 0 or more. */
export function maxDropParameter(query: URLSearchParams): number {
  const value = query.get("maxDrop");
  if (value === null || value === "") return 0;
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number) || number < 0) {
    throw new BadQueryError(
      `maxDrop must be a number of 0 or more, e.g. 0.05; got ${JSON.stringify(value.slice(0, 50))}.`,
    );
  }
  return number;
}

/** `alpha` (default 0.05) and `stats=0` of `/api/compare`, as `--alpha` and `--no-stats`. */
export function alphaParameter(query: URLSearchParams): number | null {
  const stats = query.get("stats");
  if (stats === "0" || stats === "false") return null;
  const value = query.get("alpha");
  if (value === null || value === "") return 0.05;
  const number = Number(value);
  if (value.trim() === "" || !(number > 0 && number < 1)) {
    throw new BadQueryError(
      `alpha must be a number between 0 and 1, e.g. 0.05; got ${JSON.stringify(value.slice(0, 50))}.`,
    );
  }
  return number;
}

import type { TestResult } from "../../results/evaluation-result.ts";
import type { CaseRow, CasesPage } from "../case-views.ts";
import {
  type CaseEntry,
  groupsOf,
  NO_FILE_GROUP,
  toCaseEntry,
  UNTAGGED_GROUP,
} from "./case-rows.ts";

/** A case-table query, checked (see `CaseQuery` in api.ts). */
export interface CaseTableQuery {
  sort: { by: "case" | "name" | "status" } | { by: "metric"; metric: string };
  dir: "asc" | "desc";
  filter: "all" | "passing" | "failing" | "errored";
  /** Lower-cased; `""` matches every case. */
  q: string;
  group: "file" | "tag" | null;
  offset: number;
  limit: number;
}

/** How `sort=status` orders cases (ascending): problems first. */
const STATUS_ORDER: Record<CaseRow["status"], number> = {
  errored: 0,
  failed: 1,
  unscored: 2,
  scored: 3,
  passed: 4,
};

const FILTERS: Record<CaseTableQuery["filter"], (entry: CaseEntry) => boolean> = {
  all: () => true,
  passing: (entry) => entry.status === "passed",
  failing: (entry) => entry.status === "failed",
  errored: (entry) => entry.status === "errored",
};

const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

/**
 * The results of one run held in memory as table entries, in run order, with the sorted orders
 * its queries asked for kept: a query over 10,000 cases is a filter over a sorted array.
 * Immutable: a run that changes gets a new one (which reuses the entries of unchanged cases).
 */
export class LoadedRun {
  readonly runId: string;
  /** The store's results version this holds (see `RunStore.getTestResultsVersion`). */
  readonly version: number;
  readonly entries: readonly CaseEntry[];
  private readonly byKey: Map<string, CaseEntry>;
  private readonly sorted = new Map<string, CaseEntry[]>();
  private names: { metrics: string[]; files: string[]; tags: string[] } | null = null;

  constructor(options: {
    runId: string;
    version: number;
    /** In index order. */
    results: readonly TestResult[];
    /** The run as loaded before: entries of unchanged results are reused. */
    previous?: LoadedRun | undefined;
  }) {
    this.runId = options.runId;
    this.version = options.version;
    const previous = options.previous;
    this.entries = options.results.map((result, index) => {
      const position = index + 1;
      const reused = previous?.byKey.get(String(result.index));
      if (reused !== undefined && reused.result === result) {
        reused.position = position;
        reused.row.position = position;
        return reused;
      }
      return toCaseEntry(result, position);
    });
    this.byKey = new Map(this.entries.map((entry) => [entry.key, entry]));
  }

  /** The results, in run order. */
  get results(): TestResult[] {
    return this.entries.map((entry) => entry.result);
  }

  get size(): number {
    return this.entries.length;
  }

  entry(key: string): CaseEntry | undefined {
    return this.byKey.get(key);
  }

  /** Metric names in the order they first appear, and the files and tags present, sorted. */
  get present(): { metrics: string[]; files: string[]; tags: string[] } {
    if (this.names === null) {
      const metrics = new Set<string>();
      const files = new Set<string>();
      const tags = new Set<string>();
      for (const { result } of this.entries) {
        for (const metric of result.metricsData) metrics.add(metric.name);
        for (const trial of result.trials)
          for (const metric of trial.metricsData) metrics.add(metric.name);
        if (result.file !== undefined) files.add(result.file);
        for (const tag of result.tags ?? []) tags.add(tag);
      }
      this.names = {
        metrics: [...metrics],
        files: [...files].sort(collator.compare),
        tags: [...tags].sort(collator.compare),
      };
    }
    return this.names;
  }

  /** One page of the case table: sorted, filtered, searched and grouped as asked. */
  query(query: CaseTableQuery): Omit<CasesPage, "resultsVersion"> {
    const keep = FILTERS[query.filter];
    const matches = this.order(query).filter(
      (entry) => keep(entry) && (query.q === "" || entry.haystack.includes(query.q)),
    );
    const page = { runTotal: this.entries.length, offset: query.offset, limit: query.limit };
    if (query.group === null) {
      return {
        ...page,
        cases: matches.slice(query.offset, query.offset + query.limit).map((entry) => entry.row),
        total: matches.length,
      };
    }
    const members = new Map<string, CaseEntry[]>();
    for (const entry of matches) {
      for (const group of groupsOf(entry, query.group)) {
        const list = members.get(group);
        if (list === undefined) members.set(group, [entry]);
        else list.push(entry);
      }
    }
    const last = query.group === "file" ? NO_FILE_GROUP : UNTAGGED_GROUP;
    const names = [...members.keys()].sort((left, right) =>
      left === last ? 1 : right === last ? -1 : collator.compare(left, right),
    );
    const rows: CaseRow[] = [];
    const end = query.offset + query.limit;
    let seen = 0;
    for (const name of names) {
      const list = members.get(name) as CaseEntry[];
      if (seen + list.length > query.offset && seen < end) {
        for (const entry of list.slice(Math.max(0, query.offset - seen), end - seen)) {
          rows.push({ ...entry.row, group: name });
        }
      }
      seen += list.length;
    }
    return {
      ...page,
      cases: rows,
      total: seen,
      groups: names.map((name) => ({ name, count: (members.get(name) as CaseEntry[]).length })),
    };
  }

  /** Entries in the query's order (computed once per order, then kept). */
  private order(query: CaseTableQuery): CaseEntry[] {
    const name = query.sort.by === "metric" ? `metric:${query.sort.metric}` : query.sort.by;
    const id = `${name} ${query.dir}`;
    let sorted = this.sorted.get(id);
    if (sorted === undefined) {
      sorted = [...this.entries].sort(this.comparator(query));
      this.sorted.set(id, sorted);
    }
    return sorted;
  }

  private comparator(query: CaseTableQuery): (left: CaseEntry, right: CaseEntry) => number {
    const sign = query.dir === "asc" ? 1 : -1;
    const byPosition = (left: CaseEntry, right: CaseEntry) => left.position - right.position;
    const sort = query.sort;
    switch (sort.by) {
      case "case":
        return (left, right) => sign * byPosition(left, right);
      case "name":
        return (left, right) =>
          sign * collator.compare(left.result.name, right.result.name) || byPosition(left, right);
      case "status":
        return (left, right) =>
          sign * (STATUS_ORDER[left.status] - STATUS_ORDER[right.status]) ||
          byPosition(left, right);
      case "metric": {
        // Cases without a score on the metric (errored, not run) come last either way.
        const score = (entry: CaseEntry) => entry.row.metrics[sort.metric]?.score ?? null;
        return (left, right) => {
          const a = score(left);
          const b = score(right);
          if (a === null || b === null) {
            return a === b ? byPosition(left, right) : a === null ? 1 : -1;
          }
          return sign * (a - b) || byPosition(left, right);
        };
      }
    }
  }
}

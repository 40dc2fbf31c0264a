import { formatCount, formatPlural, showName } from "../../../report/format.ts";
import { RUN_STATUSES } from "../../../results/run-status.ts";
import type { IdentifierList, RunRow, RunsPage as RunsPageData } from "../../api.ts";
import { apiPath } from "../api-client.ts";
import { Link } from "../components/link.tsx";
import { ErrorNotice, Loading } from "../components/load-state.tsx";
import { Pager } from "../components/pager.tsx";
import { SearchBox } from "../components/search-box.tsx";
import { NO_IDENTIFIER, offsetOfPage, pageOfOffset, runsPath, updateQuery } from "../router.ts";
import { useApi } from "../use-api.ts";
import { useTitle } from "../use-title.ts";
import { RunGroupTable } from "./run-group-table.tsx";
import { Trends } from "./trends.tsx";

const PAGE_SIZE = 50;

/** Runs of a page grouped by identifier, groups in the order of their newest run. */
function groupByIdentifier(runs: RunRow[]): Array<{ identifier: string | null; runs: RunRow[] }> {
  const groups = new Map<string | null, RunRow[]>();
  for (const run of runs) {
    const group = groups.get(run.identifier);
    if (group) group.push(run);
    else groups.set(run.identifier, [run]);
  }
  return [...groups].map(([identifier, groupRuns]) => ({ identifier, runs: groupRuns }));
}

/**
 * `/`: every stored run, newest first, grouped by identifier, with per-metric mean score and
 * pass rate; search, filters (identifier, status, dates) and paging live in the URL's query.
 * With one identifier picked, its trends are drawn above the table.
 */
export function RunsPage(props: { query: URLSearchParams }) {
  const { query } = props;
  const q = query.get("q") ?? "";
  const identifier = query.get("identifier");
  const status = query.get("status") ?? "";
  const from = query.get("from") ?? "";
  const to = query.get("to") ?? "";
  const offset = offsetOfPage(query.get("page"), PAGE_SIZE);
  useTitle(identifier === null ? "Runs" : `Runs of ${identifier}`);

  const runsUrl = apiPath("/api/runs", {
    q: q || null,
    identifier: identifier === NO_IDENTIFIER ? "" : identifier,
    status: status || null,
    from: from || null,
    to: to || null,
    offset,
    limit: PAGE_SIZE,
  });
  const runs = useApi<RunsPageData>(runsUrl);
  const identifiers = useApi<IdentifierList>("/api/identifiers");
  const filtered = q !== "" || identifier !== null || status !== "" || from !== "" || to !== "";
  const setFilter = (name: string, value: string | null) =>
    updateQuery({ [name]: value, page: null });

  return (
    <div class="page" aria-busy={runs.loading}>
      <div class="page-heading">
        <h1 tabIndex={-1}>
          {identifier === null
            ? "Runs"
            : identifier === NO_IDENTIFIER
              ? "Runs without identifier"
              : showName(identifier)}
        </h1>
        {identifier !== null && (
          <p class="page-subtitle">
            Runs with this identifier · <Link href={runsPath()}>all runs</Link>
          </p>
        )}
      </div>
      <search class="filters" aria-label="Filter runs">
        <SearchBox
          value={q}
          placeholder="Run id or identifier"
          onInput={(value) => setFilter("q", value)}
        />
        <label class="filter">
          <span>Identifier</span>
          <select
            value={identifier ?? ""}
            onChange={(event) => setFilter("identifier", event.currentTarget.value || null)}
          >
            <option value="">All identifiers</option>
            {identifiers.data?.identifiers.map((entry) => {
              const value = entry.identifier ?? NO_IDENTIFIER;
              return (
                <option key={value} value={value}>
                  {`${entry.identifier === null ? "No identifier" : showName(entry.identifier)} (${formatCount(entry.runs)})`}
                </option>
              );
            })}
          </select>
        </label>
        <label class="filter">
          <span>Status</span>
          <select
            value={status}
            onChange={(event) => setFilter("status", event.currentTarget.value)}
          >
            <option value="">Any status</option>
            {RUN_STATUSES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        <label class="filter">
          <span>From</span>
          <input
            type="date"
            value={from}
            onChange={(event) => setFilter("from", event.currentTarget.value)}
          />
        </label>
        <label class="filter">
          <span>To</span>
          <input
            type="date"
            value={to}
            onChange={(event) => setFilter("to", event.currentTarget.value)}
          />
        </label>
        {filtered && (
          <button type="button" class="button-quiet" onClick={() => updateQuery(clearedFilters)}>
            Clear filters
          </button>
        )}
      </search>

      {identifier !== null && (
        <Trends
          identifier={identifier === NO_IDENTIFIER ? null : identifier}
          includeFake={query.get("fake") === "1"}
        />
      )}

      {runs.error && <ErrorNotice error={runs.error} what="runs" />}
      {runs.data === null && !runs.error && <Loading what="runs" />}
      {runs.data !== null && (
        <RunGroups data={runs.data} filtered={filtered} dataUrl={runs.dataUrl} />
      )}
    </div>
  );
}

const clearedFilters = {
  fake: null,
  q: null,
  identifier: null,
  status: null,
  from: null,
  to: null,
  page: null,
};

function RunGroups(props: { data: RunsPageData; filtered: boolean; dataUrl: string | null }) {
  const { data } = props;
  if (data.total === 0) {
    return (
      <p class="empty" data-runs-url={props.dataUrl}>
        {props.filtered ? (
          "No run matches these filters."
        ) : (
          <>
            No runs stored yet. Run <code>verdict test run</code> or <code>evaluate()</code>, then
            reload.
          </>
        )}
      </p>
    );
  }
  return (
    <div class="run-groups" data-runs-url={props.dataUrl}>
      <p class="result-count" role="status">
        {formatPlural(data.total, "run")}
        {props.filtered ? " match" : ""}
      </p>
      {groupByIdentifier(data.runs).map((group) => (
        <RunGroupTable
          key={group.identifier ?? NO_IDENTIFIER}
          identifier={group.identifier}
          runs={group.runs}
        />
      ))}
      <Pager
        label="Runs"
        offset={data.offset}
        limit={data.limit}
        total={data.total}
        onOffset={(next) => updateQuery({ page: pageOfOffset(next, data.limit) })}
      />
    </div>
  );
}

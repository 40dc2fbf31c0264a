import { useEffect } from "preact/hooks";
import {
  formatCount,
  formatDuration,
  formatPlural,
  formatScore,
  MISSING_VALUE,
  showName,
} from "../../../report/format.ts";
import type { RunDetail } from "../../api.ts";
import type { CaseQuery, CaseRow, CasesPage } from "../../case-views.ts";
import { apiPath } from "../api-client.ts";
import { ExpandableText } from "../components/expandable-text.tsx";
import { Link } from "../components/link.tsx";
import { ErrorNotice } from "../components/load-state.tsx";
import { Pager } from "../components/pager.tsx";
import { SearchBox } from "../components/search-box.tsx";
import { CaseStatusBadge } from "../components/status-badge.tsx";
import { casePath, offsetOfPage, pageOfOffset, updateQuery } from "../router.ts";
import { useApi } from "../use-api.ts";

const PAGE_SIZE = 100;
const FILTERS = [
  { value: "all", label: "All" },
  { value: "failing", label: "Failing" },
  { value: "errored", label: "Errored" },
  { value: "passing", label: "Passing" },
] as const;

type Filter = NonNullable<CaseQuery["filter"]>;

/** The case table's query, read from the run page's URL (`?sort=metric:Bias&dir=desc&…`). */
export function caseQueryOf(query: URLSearchParams): Required<Omit<CaseQuery, "group">> & {
  group: CaseQuery["group"] | null;
} {
  const filter = query.get("filter");
  const group = query.get("group");
  return {
    sort: query.get("sort") ?? "case",
    dir: query.get("dir") === "desc" ? "desc" : "asc",
    filter: FILTERS.some((entry) => entry.value === filter) ? (filter as Filter) : "all",
    q: query.get("q") ?? "",
    group: group === "file" || group === "tag" ? group : null,
    offset: offsetOfPage(query.get("page"), PAGE_SIZE),
    limit: PAGE_SIZE,
  };
}

/**
 * A run's cases, a page of 100 at a time from the server (so 10,000 cases load as fast as
 * 100): each case's input, output and expected output (cut, whole on "Show all"), sortable
 * by name, status or any metric's score, filtered by outcome, searched in input, output and
 * reasons, grouped by file or tag. Every setting is in the URL.
 * `reloadKey` changes when a live run gained cases.
 */
export function CaseTable(props: {
  runId: string;
  detail: RunDetail;
  query: URLSearchParams;
  reloadKey: number;
}) {
  const { detail } = props;
  const caseQuery = caseQueryOf(props.query);
  const url = apiPath(`/api/runs/${encodeURIComponent(props.runId)}/cases`, {
    ...caseQuery,
    q: caseQuery.q || null,
    sort: caseQuery.sort === "case" ? null : caseQuery.sort,
    dir: caseQuery.dir === "asc" ? null : caseQuery.dir,
    filter: caseQuery.filter === "all" ? null : caseQuery.filter,
    offset: caseQuery.offset === 0 ? null : caseQuery.offset,
  });
  const cases = useApi<CasesPage>(url);
  const { reload } = cases;
  useEffect(() => {
    if (props.reloadKey > 0) reload();
  }, [props.reloadKey]);

  const set = (changes: Record<string, string | null>) => updateQuery({ ...changes, page: null });
  const sortBy = (sort: string) => {
    const dir = caseQuery.sort === sort && caseQuery.dir === "asc" ? "desc" : null;
    set({ sort: sort === "case" ? null : sort, dir });
  };

  return (
    <section class="cases" aria-labelledby="cases-heading" aria-busy={cases.loading}>
      <h2 id="cases-heading">Test cases</h2>
      <search class="filters" aria-label="Filter test cases">
        <SearchBox
          value={caseQuery.q}
          placeholder="Input, output or reason"
          onInput={(value) => set({ q: value })}
        />
        <fieldset class="filter segmented">
          <legend>Show</legend>
          {FILTERS.map((entry) => (
            <label key={entry.value}>
              <input
                type="radio"
                name="case-filter"
                value={entry.value}
                checked={caseQuery.filter === entry.value}
                onChange={() => set({ filter: entry.value === "all" ? null : entry.value })}
              />
              <span>{entry.label}</span>
            </label>
          ))}
        </fieldset>
        <label class="filter">
          <span>Group by</span>
          <select
            value={caseQuery.group ?? ""}
            onChange={(event) => set({ group: event.currentTarget.value || null })}
          >
            <option value="">Nothing</option>
            <option value="file" disabled={detail.files.length === 0}>
              File
            </option>
            <option value="tag" disabled={detail.tags.length === 0}>
              Tag
            </option>
          </select>
        </label>
      </search>
      {cases.error && <ErrorNotice error={cases.error} what="test cases" />}
      {cases.data && (
        <CaseRows
          runId={props.runId}
          metricNames={detail.metricNames}
          page={cases.data}
          dataUrl={cases.dataUrl}
          sort={caseQuery.sort}
          dir={caseQuery.dir}
          onSort={sortBy}
        />
      )}
    </section>
  );
}

function SortHeader(props: {
  label: string;
  sortKey: string;
  sort: string;
  dir: "asc" | "desc";
  onSort: (sort: string) => void;
  numeric?: boolean;
}) {
  const active = props.sort === props.sortKey;
  const ariaSort = active ? (props.dir === "asc" ? "ascending" : "descending") : undefined;
  return (
    <th scope="col" aria-sort={ariaSort} class={props.numeric ? "numeric" : undefined}>
      <button type="button" class="sort-button" onClick={() => props.onSort(props.sortKey)}>
        {props.label}
        <span class="sort-mark" aria-hidden="true">
          {active ? (props.dir === "asc" ? " ▲" : " ▼") : " ↕"}
        </span>
      </button>
    </th>
  );
}

function CaseRows(props: {
  runId: string;
  metricNames: string[];
  page: CasesPage;
  dataUrl: string | null;
  sort: string;
  dir: "asc" | "desc";
  onSort: (sort: string) => void;
}) {
  const { page } = props;
  const withExpected = page.cases.some((row) => row.expectedOutput !== null);
  const columns = 5 + (withExpected ? 1 : 0) + props.metricNames.length;
  const groupSizes = new Map(page.groups?.map((group) => [group.name, group.count]));
  let previousGroup: string | undefined;
  const sortProps = { sort: props.sort, dir: props.dir, onSort: props.onSort };
  return (
    <>
      <p class="result-count" role="status">
        {page.total === page.runTotal
          ? formatPlural(page.total, "test case")
          : `${formatCount(page.total)} of ${formatPlural(page.runTotal, "test case")} match`}
      </p>
      <div class="table-scroll">
        <table class="data-table case-table" data-cases-url={props.dataUrl}>
          <caption class="visually-hidden">Test cases; the column buttons sort the table</caption>
          <thead>
            <tr>
              <SortHeader label="#" sortKey="case" numeric {...sortProps} />
              <SortHeader label="Test case" sortKey="name" {...sortProps} />
              <th scope="col" class="text-column">
                Output
              </th>
              {withExpected && (
                <th scope="col" class="text-column">
                  Expected output
                </th>
              )}
              <SortHeader label="Status" sortKey="status" {...sortProps} />
              {props.metricNames.map((name) => (
                <SortHeader
                  key={name}
                  label={showName(name)}
                  sortKey={`metric:${name}`}
                  numeric
                  {...sortProps}
                />
              ))}
              <th scope="col" class="numeric">
                Duration
              </th>
            </tr>
          </thead>
          <tbody>
            {page.cases.length === 0 && (
              <tr>
                <td colSpan={columns} class="empty">
                  No test case matches.
                </td>
              </tr>
            )}
            {page.cases.flatMap((row) => {
              const rows = [];
              if (row.group !== undefined && row.group !== previousGroup) {
                previousGroup = row.group;
                const size = groupSizes.get(row.group);
                rows.push(
                  <tr class="group-row" key={`group:${row.group}`}>
                    <th scope="colgroup" colSpan={columns}>
                      {row.group}
                      {size !== undefined && (
                        <span class="cell-note"> {formatPlural(size, "case")}</span>
                      )}
                    </th>
                  </tr>,
                );
              }
              rows.push(
                <CaseRowView
                  key={row.key}
                  runId={props.runId}
                  row={row}
                  metricNames={props.metricNames}
                  withExpected={withExpected}
                />,
              );
              return rows;
            })}
          </tbody>
        </table>
      </div>
      <Pager
        label="Cases"
        offset={page.offset}
        limit={page.limit}
        total={page.total}
        onOffset={(next) => updateQuery({ page: pageOfOffset(next, page.limit) })}
      />
    </>
  );
}

function CaseRowView(props: {
  runId: string;
  row: CaseRow;
  metricNames: string[];
  withExpected: boolean;
}) {
  const { row } = props;
  const text = (field: "input" | "actualOutput" | "expectedOutput", label: string) => (
    <ExpandableText
      text={row[field]}
      length={row.textLengths?.[field] ?? null}
      runId={props.runId}
      caseKey={row.key}
      field={field}
      label={`${label} of ${showName(row.name)}`}
    />
  );
  return (
    <tr class={`case-row case-row-${row.status}`}>
      <td class="numeric">{formatCount(row.position)}</td>
      <th scope="row" class="case-cell">
        <Link href={casePath(props.runId, row.key)} class="case-link">
          {showName(row.name)}
        </Link>
        <span class="cell-note case-input">{text("input", "input")}</span>
        {row.tags.length > 0 && (
          <span class="tags">
            {row.tags.map((tag) => (
              <span class="tag" key={tag}>
                {showName(tag)}
              </span>
            ))}
          </span>
        )}
      </th>
      <td class="text-column case-output">{text("actualOutput", "output")}</td>
      {props.withExpected && (
        <td class="text-column case-expected">{text("expectedOutput", "expected output")}</td>
      )}
      <td>
        <CaseStatusBadge status={row.status} />
      </td>
      {props.metricNames.map((name) => {
        const metric = row.metrics[name];
        if (!metric)
          return (
            <td key={name} class="numeric">
              {MISSING_VALUE}
            </td>
          );
        if (metric.error !== null) {
          return (
            <td key={name} class="numeric score-error" title={metric.error}>
              ! error
            </td>
          );
        }
        const outcome =
          metric.success === true ? "pass" : metric.success === false ? "fail" : "none";
        return (
          <td key={name} class={`numeric score-${outcome}`}>
            {formatScore(metric.score)}
            <span class="score-mark">
              {outcome === "pass" ? " ✓" : outcome === "fail" ? " ✗" : ""}
            </span>
          </td>
        );
      })}
      <td class="numeric">
        {row.durationMs === null ? MISSING_VALUE : formatDuration(row.durationMs)}
      </td>
    </tr>
  );
}

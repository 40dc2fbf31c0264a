import {
  formatCostUsd,
  formatCount,
  formatDuration,
  formatPlural,
  showName,
} from "../../../report/format.ts";
import type { RunDetail, RunRow } from "../../api.ts";
import { Link } from "../components/link.tsx";
import { FakeJudgeLabel, RunStatusBadge } from "../components/status-badge.tsx";
import { TimeText } from "../components/time-text.tsx";
import { runsPath } from "../router.ts";
import type { LiveState } from "../use-live-run.ts";

const EXPORTS = [
  { format: "html", label: "HTML report" },
  { format: "json", label: "JSON" },
  { format: "junit", label: "JUnit XML" },
  { format: "csv", label: "CSV" },
] as const;

/** A run's title: its identifier, else "Run" and its short id. */
export function runTitle(run: RunRow): string {
  return run.identifier === null ? `Run ${run.shortId}` : showName(run.identifier);
}

/** The top of a run's page: title, facts, status, notices and the export links. */
export function RunHeader(props: { detail: RunDetail }) {
  const { run } = props.detail;
  const exportBase = `/api/runs/${encodeURIComponent(run.id)}/export`;
  return (
    <header class="page-heading run-header">
      <div class="run-heading">
        <p class="breadcrumbs">
          <Link href={runsPath()}>Runs</Link>
          {run.identifier !== null && (
            <>
              {" / "}
              <Link href={runsPath({ identifier: run.identifier })}>
                {showName(run.identifier)}
              </Link>
            </>
          )}
        </p>
        <h1 tabIndex={-1}>{runTitle(run)}</h1>
        <dl class="run-facts">
          <div>
            <dt>Run</dt>
            <dd>
              <code>{showName(run.id)}</code>
            </dd>
          </div>
          <div>
            <dt>Started</dt>
            <dd>
              <TimeText iso={run.startedAt} />
            </dd>
          </div>
          {run.endedAt !== null && (
            <div>
              <dt>Ended</dt>
              <dd>
                <TimeText iso={run.endedAt} />
              </dd>
            </div>
          )}
          {run.judges.length > 0 && (
            <div>
              <dt>{run.judges.length === 1 ? "Judge" : "Judges"}</dt>
              <dd>
                {run.judges.map(showName).join(", ")}
                {run.fakeJudge && <FakeJudgeLabel />}
              </dd>
            </div>
          )}
          {run.shard !== null && (
            <div>
              <dt>Shard</dt>
              <dd>{run.shard}</dd>
            </div>
          )}
        </dl>
      </div>
      <div class="run-header-side">
        <RunStatusBadge status={run.status} />
        <ul class="exports" aria-label="Export this run">
          {EXPORTS.map((entry) => (
            <li key={entry.format}>
              <a href={`${exportBase}?format=${entry.format}`} download>
                {entry.label}
              </a>
            </li>
          ))}
        </ul>
      </div>
    </header>
  );
}

/** A running run's progress and spend, updated by server-sent events. */
export function LiveProgress(props: { run: RunRow; live: LiveState }) {
  const run = props.live.run ?? props.run;
  const finished = run.cases.total - run.cases.unscored;
  const elapsed = Date.now() - Date.parse(run.startedAt);
  return (
    <section class="live" aria-labelledby="live-heading">
      <h2 id="live-heading" class="live-heading">
        <span
          class={props.live.connected ? "live-dot live-dot-on" : "live-dot"}
          aria-hidden="true"
        />
        {props.live.waiting
          ? "Run finished · watching for changes"
          : props.live.ended
            ? "Run finished"
            : "Live"}
      </h2>
      <p class="live-figures" role="status" aria-live="polite">
        {formatPlural(finished, "case")} finished ({formatCount(run.cases.passed)} passed,{" "}
        {formatCount(run.cases.failed)} failed, {formatCount(run.cases.errored)} errored) ·{" "}
        {formatPlural(run.judgeCalls, "judge call")} · {formatCostUsd(run.costUsd)} spent
        {run.status === "running" &&
          Number.isFinite(elapsed) &&
          ` · running for ${formatDuration(elapsed)}`}
        {props.live.newCases > 0 &&
          ` · ${formatPlural(props.live.newCases, "new case")} since you opened this page`}
      </p>
      {props.live.waiting && (
        <p class="section-note">
          This run's <code>verdict test run --watch</code> session goes on: its next run (on the
          next save of an eval file) opens here.
        </p>
      )}
      {!props.live.connected && !props.live.ended && (
        <p class="section-note">Connecting to the run's event stream…</p>
      )}
    </section>
  );
}

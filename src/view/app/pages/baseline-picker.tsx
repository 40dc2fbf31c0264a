import { useState } from "preact/hooks";
import { showName } from "../../../report/format.ts";
import type { RunRow, RunsPage } from "../../api.ts";
import { apiPath } from "../api-client.ts";
import { formatTime } from "../components/time-text.tsx";
import { navigate, runPath } from "../router.ts";
import { useApi } from "../use-api.ts";

const CANDIDATES = 50;

/** How a run reads in a list of runs to pick from. */
export function runOptionLabel(run: RunRow): string {
  return `${showName(run.identifier ?? "no identifier")} · ${showName(run.shortId)} · ${formatTime(run.startedAt, { withSeconds: false })} · ${run.status}`;
}

/**
 * Picks the run to compare with: the latest runs of the same identifier (or, without one, of
 * the runs without one), the newest earlier run first picked. Submitting opens `/runs/:run?baseline=<id>`, a link that can be shared.
 */
export function BaselinePicker(props: { run: RunRow; baselineId: string | null }) {
  const { run } = props;
  const candidates = useApi<RunsPage>(
    apiPath("/api/runs", { identifier: run.identifier ?? "", limit: CANDIDATES }),
  );
  const others = candidates.data?.runs.filter((candidate) => candidate.id !== run.id) ?? [];
  const [choice, setChoice] = useState<string | null>(null);
  const selected =
    choice ??
    props.baselineId ??
    others.find((other) => other.startedAt < run.startedAt)?.id ??
    others[0]?.id ??
    "";
  if (candidates.data !== null && others.length === 0 && props.baselineId === null) {
    return <p class="section-note">No other run with this identifier to compare with yet.</p>;
  }
  return (
    <form
      class="baseline-picker"
      onSubmit={(event) => {
        event.preventDefault();
        if (selected !== "") navigate(runPath(run.id, { baseline: selected }));
      }}
    >
      <label class="filter">
        <span>Baseline run</span>
        <select value={selected} onChange={(event) => setChoice(event.currentTarget.value)}>
          {props.baselineId !== null && !others.some((other) => other.id === props.baselineId) && (
            <option value={props.baselineId}>{showName(props.baselineId)}</option>
          )}
          {others.map((other) => (
            <option key={other.id} value={other.id}>
              {runOptionLabel(other)}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={selected === ""}>
        Compare
      </button>
      {props.baselineId !== null && (
        <button type="button" class="button-quiet" onClick={() => navigate(runPath(run.id))}>
          Hide comparison
        </button>
      )}
    </form>
  );
}

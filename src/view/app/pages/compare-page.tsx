import { useState } from "preact/hooks";
import type { RunsPage } from "../../api.ts";
import { apiPath } from "../api-client.ts";
import { comparePath, navigate } from "../router.ts";
import { useApi } from "../use-api.ts";
import { useTitle } from "../use-title.ts";
import { runOptionLabel } from "./baseline-picker.tsx";
import { Comparison } from "./comparison.tsx";

const CANDIDATES = 200;

/**
 * `/compare?run=A&baseline=B`: two runs compared (the link can be shared). Without both, two
 * lists to pick them from.
 */
export function ComparePage(props: { runId: string | null; baselineId: string | null }) {
  useTitle("Compare runs");
  const runs = useApi<RunsPage>(apiPath("/api/runs", { limit: CANDIDATES }));
  const [run, setRun] = useState<string | null>(null);
  const [baseline, setBaseline] = useState<string | null>(null);
  const all = runs.data?.runs ?? [];
  const runValue = run ?? props.runId ?? all[0]?.id ?? "";
  const baselineValue =
    baseline ?? props.baselineId ?? all.find((other) => other.id !== runValue)?.id ?? "";
  const picker = (label: string, value: string, onChange: (id: string) => void) => (
    <label class="filter">
      <span>{label}</span>
      <select value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        {value !== "" && !all.some((entry) => entry.id === value) && (
          <option value={value}>{value}</option>
        )}
        {all.map((entry) => (
          <option key={entry.id} value={entry.id}>
            {runOptionLabel(entry)}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div class="page">
      <div class="page-heading">
        <h1 tabIndex={-1}>Compare runs</h1>
        <p class="page-subtitle">
          The same numbers as <code>verdict compare BASELINE RUN</code>.
        </p>
      </div>
      <form
        class="baseline-picker"
        onSubmit={(event) => {
          event.preventDefault();
          if (runValue !== "" && baselineValue !== "")
            navigate(comparePath(runValue, baselineValue));
        }}
      >
        {picker("Baseline run", baselineValue, setBaseline)}
        {picker("Run", runValue, setRun)}
        <button type="submit" disabled={runValue === "" || baselineValue === ""}>
          Compare
        </button>
      </form>
      {props.runId !== null && props.baselineId !== null && (
        <Comparison runId={props.runId} baselineId={props.baselineId} />
      )}
    </div>
  );
}

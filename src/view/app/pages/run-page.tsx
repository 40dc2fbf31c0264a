import { useState } from "preact/hooks";
import { showName } from "../../../report/format.ts";
import { FAKE_JUDGE_NOTICE } from "../../../results/fake-judge-notice.ts";
import type { RunDetail } from "../../api.ts";
import { ErrorNotice, Loading } from "../components/load-state.tsx";
import { navigate, runPath } from "../router.ts";
import { useApi } from "../use-api.ts";
import { useLiveRun } from "../use-live-run.ts";
import { useTitle } from "../use-title.ts";
import { BaselinePicker } from "./baseline-picker.tsx";
import { CaseTable } from "./case-table.tsx";
import { Comparison } from "./comparison.tsx";
import { FlakyCases } from "./flaky-cases.tsx";
import { RunCalibrations } from "./run-calibrations.tsx";
import { LiveProgress, RunHeader, runTitle } from "./run-header.tsx";
import { RunSummary } from "./run-summary.tsx";

/**
 * `/runs/:run`: the run's header and export links, its live progress while it runs, the totals
 * and histograms of the HTML report (with 95% intervals), its flaky cases, the calibrations it
 * scored, a comparison with `?baseline=`, and the case table.
 */
export function RunPage(props: { runId: string; query: URLSearchParams }) {
  const detail = useApi<RunDetail>(`/api/runs/${encodeURIComponent(props.runId)}`);
  const [reloadKey, setReloadKey] = useState(0);
  const running = detail.data?.run.status === "running";
  // A watch session's run is followed after it ends too: its session's next run opens here.
  const watching = detail.data?.run.watchSession === "watching";
  const live = useLiveRun(
    props.runId,
    running || watching,
    () => {
      detail.reload();
      setReloadKey((key) => key + 1);
    },
    (next) => navigate(runPath(next.id), { replace: true }),
  );
  const baselineId = props.query.get("baseline");
  useTitle(detail.data ? runTitle(detail.data.run) : "Run");

  if (detail.error && detail.data === null) {
    return (
      <div class="page">
        <h1 tabIndex={-1}>Run {showName(props.runId)}</h1>
        <ErrorNotice error={detail.error} what="run" />
      </div>
    );
  }
  if (detail.data === null) {
    return (
      <div class="page" aria-busy="true">
        <h1 tabIndex={-1}>Run {showName(props.runId)}</h1>
        <Loading what="run" />
      </div>
    );
  }
  const data = detail.data;
  return (
    <div class="page" aria-busy={detail.loading}>
      <RunHeader detail={data} />
      {data.notice !== null && (
        <p class="notice notice-warn" role="note">
          {data.notice}
        </p>
      )}
      {data.run.fakeJudge && (
        <p class="notice notice-warn" role="note">
          <strong>Fake judge.</strong> {FAKE_JUDGE_NOTICE}
        </p>
      )}
      {(running || live.waiting || live.ended) && <LiveProgress run={data.run} live={live} />}
      <RunSummary detail={data} />
      <FlakyCases runId={data.run.id} cases={data.flakyCases} />
      <RunCalibrations runId={data.run.id} />
      <section class="compare-section" aria-labelledby="compare-heading">
        <h2 id="compare-heading">Compare with a baseline</h2>
        <BaselinePicker run={data.run} baselineId={baselineId} />
        {baselineId !== null && <Comparison runId={data.run.id} baselineId={baselineId} embedded />}
      </section>
      <CaseTable runId={data.run.id} detail={data} query={props.query} reloadKey={reloadKey} />
    </div>
  );
}

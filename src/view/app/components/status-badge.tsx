import { RUN_STATUS_MEANING } from "../../../report/format.ts";
import type { RunStatus } from "../../../results/evaluation-result.ts";
import type { CaseRow } from "../../case-views.ts";

type Tone = "pass" | "fail" | "error" | "neutral" | "running";

const CASE_STATUS: Record<CaseRow["status"], { tone: Tone; label: string }> = {
  passed: { tone: "pass", label: "✓ PASS" },
  failed: { tone: "fail", label: "✗ FAIL" },
  errored: { tone: "error", label: "! ERROR" },
  unscored: { tone: "neutral", label: "○ UNSCORED" },
  scored: { tone: "neutral", label: "• SCORE ONLY" },
};

// A run's status says whether it went through its cases, not whether they passed: no pass or
// fail colour, and words that cannot read as a test verdict.
const RUN_STATUS: Record<RunStatus, { tone: Tone; label: string }> = {
  running: { tone: "running", label: "● run in progress" },
  completed: { tone: "neutral", label: "run finished" },
  interrupted: { tone: "error", label: "run interrupted" },
  "quota-exhausted": { tone: "error", label: "run out of quota" },
  "budget-exhausted": { tone: "error", label: "run stopped by its budget" },
  failed: { tone: "error", label: "run stopped by an error" },
};

/** A case's status: a text label with a symbol, never only a colour. */
export function CaseStatusBadge(props: { status: CaseRow["status"] }) {
  const { tone, label } = CASE_STATUS[props.status] ?? { tone: "neutral", label: props.status };
  return <span class={`badge badge-${tone}`}>{label}</span>;
}

/** A run's status, as a pill (its meaning on hover: the run's progress, not its verdict). */
export function RunStatusBadge(props: { status: RunStatus }) {
  const { tone, label } = RUN_STATUS[props.status] ?? { tone: "neutral", label: props.status };
  return (
    <span class={`badge badge-${tone}`} title={RUN_STATUS_MEANING}>
      {label}
    </span>
  );
}

/** A metric's outcome on a case: passed, failed, errored or score-only. */
export function MetricOutcomeBadge(props: { success: boolean | null; error: string | null }) {
  if (props.error !== null) return <span class="badge badge-error">! ERROR</span>;
  if (props.success === true) return <span class="badge badge-pass">✓ PASS</span>;
  if (props.success === false) return <span class="badge badge-fail">✗ FAIL</span>;
  return <span class="badge badge-neutral">• SCORE ONLY</span>;
}

/** Beside a run scored by verdict's fake judge (`VERDICT_MODEL=fake`): its scores are not real. */
export function FakeJudgeLabel() {
  return <span class="badge badge-error fake-judge-label">fake judge: scores not real</span>;
}

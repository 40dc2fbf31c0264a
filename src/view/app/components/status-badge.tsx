import type { RunStatus } from "../../../results/evaluation-result.ts";
import type { CaseRow } from "../../api.ts";

type Tone = "pass" | "fail" | "error" | "neutral" | "running";

const CASE_STATUS: Record<CaseRow["status"], { tone: Tone; label: string }> = {
  passed: { tone: "pass", label: "✓ PASS" },
  failed: { tone: "fail", label: "✗ FAIL" },
  errored: { tone: "error", label: "! ERROR" },
  unscored: { tone: "neutral", label: "○ UNSCORED" },
  scored: { tone: "neutral", label: "• SCORE ONLY" },
};

const RUN_STATUS: Record<RunStatus, { tone: Tone; label: string }> = {
  running: { tone: "running", label: "● running" },
  completed: { tone: "pass", label: "completed" },
  interrupted: { tone: "error", label: "interrupted" },
  "quota-exhausted": { tone: "fail", label: "quota exhausted" },
  "budget-exhausted": { tone: "error", label: "budget exhausted" },
  failed: { tone: "fail", label: "failed" },
};

/** A case's status: a text label with a symbol, never only a colour. */
export function CaseStatusBadge(props: { status: CaseRow["status"] }) {
  const { tone, label } = CASE_STATUS[props.status] ?? { tone: "neutral", label: props.status };
  return <span class={`badge badge-${tone}`}>{label}</span>;
}

/** A run's status, as a pill. */
export function RunStatusBadge(props: { status: RunStatus }) {
  const { tone, label } = RUN_STATUS[props.status] ?? { tone: "neutral", label: props.status };
  return <span class={`badge badge-${tone}`}>{label}</span>;
}

/** A metric's outcome on a case: passed, failed, errored or score-only. */
export function MetricOutcomeBadge(props: { success: boolean | null; error: string | null }) {
  if (props.error !== null) return <span class="badge badge-error">! ERROR</span>;
  if (props.success === true) return <span class="badge badge-pass">✓ PASS</span>;
  if (props.success === false) return <span class="badge badge-fail">✗ FAIL</span>;
  return <span class="badge badge-neutral">• SCORE ONLY</span>;
}

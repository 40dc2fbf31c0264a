import { formatDuration, showName } from "../../../report/format.ts";
import type { SpanView } from "../../case-views.ts";
import { JsonBlock } from "../components/text-block.tsx";
import { MetricDetail } from "./metric-detail.tsx";

/**
 * A component run's span tree: each span with its type, duration, error, input and output
 * (folded), and its metrics; children nested below their parent.
 */
export function SpanTree(props: { root: SpanView }) {
  return (
    <ul class="span-tree">
      <SpanNode span={props.root} depth={0} />
    </ul>
  );
}

function SpanNode(props: { span: SpanView; depth: number }) {
  const { span } = props;
  return (
    <li class="span">
      <details open={props.depth < 2}>
        <summary>
          <span class="span-name">{showName(span.name)}</span> <span class="tag">{span.type}</span>{" "}
          <span class="span-meta">
            {span.durationMs === null ? "unfinished" : formatDuration(span.durationMs)}
          </span>
          {span.error !== null && <span class="badge badge-error">! ERROR</span>}
          {span.metrics.length > 0 && (
            <span class="span-meta">
              {span.metrics.map((metric) => showName(metric.name)).join(", ")}
            </span>
          )}
        </summary>
        <div class="span-body">
          {span.error !== null && <p class="error-message">{span.error}</p>}
          <div class="fields">
            <div class="field">
              <p class="field-label">Input</p>
              <JsonBlock value={span.input} />
            </div>
            <div class="field">
              <p class="field-label">Output</p>
              <JsonBlock value={span.output} />
            </div>
          </div>
          {span.metrics.length > 0 && (
            <div class="metrics">
              {span.metrics.map((metric) => (
                <MetricDetail key={metric.name} metric={metric} />
              ))}
            </div>
          )}
        </div>
      </details>
      {span.children.length > 0 && (
        <ul>
          {span.children.map((child, index) => (
            <SpanNode key={index} span={child} depth={props.depth + 1} />
          ))}
        </ul>
      )}
    </li>
  );
}

import { scoreHistogramLayout } from "../../../report/score-histogram-layout.ts";
import type { ScoreHistogram as HistogramData } from "../../api.ts";

/**
 * A metric's scores in 10 bins from 0 to 1, drawn as the HTML report draws them (the same
 * layout: each bar labelled with its count and titled with its range, the threshold dashed),
 * so it reads without colour and without hovering.
 */
export function ScoreHistogram(props: { histogram: HistogramData }) {
  const { histogram } = props;
  const layout = scoreHistogramLayout({
    metricName: histogram.metric,
    counts: histogram.counts,
    threshold: histogram.threshold,
  });
  const { axis, threshold } = layout;
  return (
    <svg
      class="histogram"
      viewBox={`0 0 ${layout.width} ${layout.height}`}
      role="img"
      aria-label={layout.description}
    >
      <line class="histogram-axis" x1={axis.x1} x2={axis.x2} y1={axis.y} y2={axis.y} />
      {layout.bars.map((bar) => (
        <g key={bar.title}>
          <title>{bar.title}</title>
          <rect class="histogram-bar" x={bar.x} y={bar.y} width={bar.width} height={bar.height} />
          {bar.label !== null && (
            <text class="histogram-count" x={bar.label.x} y={bar.label.y} text-anchor="middle">
              {bar.count}
            </text>
          )}
        </g>
      ))}
      {threshold !== null && (
        <g>
          <title>{threshold.title}</title>
          <line
            class="histogram-threshold"
            x1={threshold.x}
            x2={threshold.x}
            y1={threshold.y1}
            y2={threshold.y2}
          />
          <text
            class="histogram-tick"
            x={threshold.x}
            y={threshold.label.y}
            dx={threshold.label.dx}
            dy={6}
            text-anchor={threshold.label.anchor}
          >
            threshold
          </text>
        </g>
      )}
      {layout.ticks.map((tick) => (
        <text
          key={tick.text}
          class="histogram-tick"
          x={tick.x}
          y={tick.y}
          text-anchor={tick.anchor}
        >
          {tick.text}
        </text>
      ))}
    </svg>
  );
}

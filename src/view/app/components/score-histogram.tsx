import { formatPlural } from "../../../report/format.ts";
import type { ScoreHistogram as HistogramData } from "../../api.ts";

const WIDTH = 240;
const HEIGHT = 110;
const PLOT_LEFT = 8;
const PLOT_RIGHT = WIDTH - 8;
const PLOT_TOP = 16;
const PLOT_BOTTOM = HEIGHT - 20;
const BAR_GAP = 2;

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function binLabel(bin: number, binCount: number): string {
  return `${(bin / binCount).toFixed(1)}–${((bin + 1) / binCount).toFixed(1)}`;
}

/**
 * A metric's scores in 10 bins from 0 to 1, as the HTML report draws them (an SVG, each bar
 * labelled with its count and titled with its range; the threshold dashed), so it reads
 * without colour and without hovering.
 */
export function ScoreHistogram(props: { histogram: HistogramData }) {
  const { counts, threshold, metric } = props.histogram;
  const binCount = Math.max(1, counts.length);
  const highest = Math.max(1, ...counts);
  const binWidth = (PLOT_RIGHT - PLOT_LEFT) / binCount;
  const plotHeight = PLOT_BOTTOM - PLOT_TOP;
  const description = `Score histogram of ${metric}: ${counts
    .map((count, bin) => `${binLabel(bin, binCount)}: ${count}`)
    .join(", ")}`;
  const thresholdX =
    threshold !== null && threshold >= 0 && threshold <= 1
      ? round(PLOT_LEFT + threshold * (PLOT_RIGHT - PLOT_LEFT))
      : null;
  return (
    <svg class="histogram" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={description}>
      <line
        class="histogram-axis"
        x1={PLOT_LEFT}
        x2={PLOT_RIGHT}
        y1={PLOT_BOTTOM + 0.5}
        y2={PLOT_BOTTOM + 0.5}
      />
      {counts.map((count, bin) => {
        const height = (count / highest) * plotHeight;
        const x = PLOT_LEFT + bin * binWidth + BAR_GAP / 2;
        const y = PLOT_BOTTOM - height;
        return (
          <g key={bin}>
            <title>{`${binLabel(bin, binCount)}: ${formatPlural(count, "result")}`}</title>
            <rect
              class="histogram-bar"
              x={round(x)}
              y={round(y)}
              width={round(binWidth - BAR_GAP)}
              height={round(height)}
            />
            {count > 0 && (
              <text
                class="histogram-count"
                x={round(x + (binWidth - BAR_GAP) / 2)}
                y={round(y - 3)}
                text-anchor="middle"
              >
                {count}
              </text>
            )}
          </g>
        );
      })}
      {thresholdX !== null && threshold !== null && (
        <g>
          <title>{`threshold ${threshold}`}</title>
          <line
            class="histogram-threshold"
            x1={thresholdX}
            x2={thresholdX}
            y1={PLOT_TOP - 10}
            y2={PLOT_BOTTOM}
          />
          <text
            class="histogram-tick"
            x={thresholdX}
            y={PLOT_TOP - 11}
            dx={threshold > 0.7 ? -3 : 3}
            dy={6}
            text-anchor={threshold > 0.7 ? "end" : "start"}
          >
            threshold
          </text>
        </g>
      )}
      {[0, 0.5, 1].map((value) => (
        <text
          key={value}
          class="histogram-tick"
          x={round(PLOT_LEFT + value * (PLOT_RIGHT - PLOT_LEFT))}
          y={HEIGHT - 6}
          text-anchor={value === 0 ? "start" : value === 1 ? "end" : "middle"}
        >
          {value}
        </text>
      ))}
    </svg>
  );
}

import { formatPlural } from "./format.ts";

/**
 * Where everything of a score histogram goes: the bars of `counts` (bins from 0 to 1), their
 * count labels and titles, the 0 / 0.5 / 1 ticks and the dashed threshold line, in a
 * 240 × 110 view box. The HTML report draws it as an SVG string, the dashboard as JSX: one
 * geometry, so both read the same. Imports nothing but the formats (the browser app uses it).
 */
export interface ScoreHistogramLayout {
  width: number;
  height: number;
  /** Every bin's range and count, for `aria-label` and `<title>`. */
  description: string;
  axis: { x1: number; x2: number; y: number };
  bars: Array<{
    x: number;
    y: number;
    width: number;
    height: number;
    /** `0.1–0.2: 2 results` */
    title: string;
    count: number;
    /** Where the count is written (above the bar); only when the count is not 0. */
    label: { x: number; y: number } | null;
  }>;
  ticks: Array<{ x: number; y: number; anchor: "start" | "middle" | "end"; text: string }>;
  threshold: {
    x: number;
    y1: number;
    y2: number;
    title: string;
    label: { y: number; dx: number; anchor: "start" | "end" };
  } | null;
}

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

/** The layout of a histogram of `counts` per bin, with the metric's threshold when there is one. */
export function scoreHistogramLayout(options: {
  metricName: string;
  counts: readonly number[];
  threshold: number | null;
}): ScoreHistogramLayout {
  const { counts } = options;
  const binCount = Math.max(1, counts.length);
  const highest = Math.max(1, ...counts);
  const binWidth = (PLOT_RIGHT - PLOT_LEFT) / binCount;
  const plotHeight = PLOT_BOTTOM - PLOT_TOP;
  const range = (bin: number) =>
    `${(bin / binCount).toFixed(1)}–${((bin + 1) / binCount).toFixed(1)}`;
  const bars = counts.map((count, bin) => {
    const height = (count / highest) * plotHeight;
    const x = PLOT_LEFT + bin * binWidth + BAR_GAP / 2;
    const y = PLOT_BOTTOM - height;
    return {
      x: round(x),
      y: round(y),
      width: round(binWidth - BAR_GAP),
      height: round(height),
      title: `${range(bin)}: ${formatPlural(count, "result")}`,
      count,
      label: count > 0 ? { x: round(x + (binWidth - BAR_GAP) / 2), y: round(y - 3) } : null,
    };
  });
  const ticks = [0, 0.5, 1].map((value) => ({
    x: round(PLOT_LEFT + value * (PLOT_RIGHT - PLOT_LEFT)),
    y: HEIGHT - 6,
    anchor: value === 0 ? ("start" as const) : value === 1 ? ("end" as const) : ("middle" as const),
    text: String(value),
  }));
  const { threshold } = options;
  return {
    width: WIDTH,
    height: HEIGHT,
    description: `Score histogram of ${options.metricName}: ${counts
      .map((count, bin) => `${range(bin)}: ${count}`)
      .join(", ")}`,
    axis: { x1: PLOT_LEFT, x2: PLOT_RIGHT, y: PLOT_BOTTOM + 0.5 },
    bars,
    ticks,
    threshold:
      threshold !== null && threshold >= 0 && threshold <= 1
        ? {
            x: round(PLOT_LEFT + threshold * (PLOT_RIGHT - PLOT_LEFT)),
            y1: PLOT_TOP - 10,
            y2: PLOT_BOTTOM,
            title: `threshold ${threshold}`,
            label: {
              y: PLOT_TOP - 11,
              dx: threshold > 0.7 ? -3 : 3,
              anchor: threshold > 0.7 ? "end" : "start",
            },
          }
        : null,
  };
}

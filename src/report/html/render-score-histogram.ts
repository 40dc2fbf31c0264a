import { formatPlural } from "../format.ts";
import { binScores, SCORE_BIN_COUNT } from "../score-bins.ts";
import { html, type SafeHtml } from "./safe-html.ts";

/** Options of {@link renderScoreHistogram}. */
export interface RenderScoreHistogramOptions {
  metricName: string;
  /** Scores from 0 to 1; values outside are clamped into the first or last bin. */
  scores: readonly number[];
  /** Drawn as a dashed line when every result of the metric had the same threshold. */
  threshold: number | null;
}

const BIN_COUNT = SCORE_BIN_COUNT;
const WIDTH = 240;
const HEIGHT = 110;
const PLOT_LEFT = 8;
const PLOT_RIGHT = WIDTH - 8;
const PLOT_TOP = 16;
const PLOT_BOTTOM = HEIGHT - 20;
const BAR_GAP = 2;

/**
 * An inline SVG histogram of scores in 10 bins from 0 to 1, each bar labelled with its count
 * and titled with its range, so it reads without colour and without hovering. The `[0.9, 1]`
 * bin includes 1.
 */
export function renderScoreHistogram(options: RenderScoreHistogramOptions): SafeHtml {
  const counts = binScores(options.scores);
  const highest = Math.max(1, ...counts);
  const binWidth = (PLOT_RIGHT - PLOT_LEFT) / BIN_COUNT;
  const plotHeight = PLOT_BOTTOM - PLOT_TOP;

  const bars = counts.map((count, bin) => {
    const low = (bin / BIN_COUNT).toFixed(1);
    const high = ((bin + 1) / BIN_COUNT).toFixed(1);
    const height = (count / highest) * plotHeight;
    const x = PLOT_LEFT + bin * binWidth + BAR_GAP / 2;
    const y = PLOT_BOTTOM - height;
    const label = `${low}–${high}: ${formatPlural(count, "result")}`;
    return html`<g><title>${label}</title><rect class="histogram-bar" x="${round(x)}" y="${round(y)}" width="${round(binWidth - BAR_GAP)}" height="${round(height)}"/>${
      count > 0
        ? html`<text class="histogram-count" x="${round(x + (binWidth - BAR_GAP) / 2)}" y="${round(y - 3)}" text-anchor="middle">${count}</text>`
        : null
    }</g>`;
  });

  const ticks = [0, 0.5, 1].map((value) => {
    const x = PLOT_LEFT + value * (PLOT_RIGHT - PLOT_LEFT);
    const anchor = value === 0 ? "start" : value === 1 ? "end" : "middle";
    return html`<text class="histogram-tick" x="${round(x)}" y="${HEIGHT - 6}" text-anchor="${anchor}">${value}</text>`;
  });

  let thresholdLine: SafeHtml | null = null;
  if (options.threshold !== null && options.threshold >= 0 && options.threshold <= 1) {
    const x = round(PLOT_LEFT + options.threshold * (PLOT_RIGHT - PLOT_LEFT));
    thresholdLine = html`<g><title>threshold ${options.threshold}</title><line class="histogram-threshold" x1="${x}" x2="${x}" y1="${PLOT_TOP - 10}" y2="${PLOT_BOTTOM}"/><text class="histogram-tick" x="${x}" y="${PLOT_TOP - 11}" text-anchor="${options.threshold > 0.7 ? "end" : "start"}" dx="${options.threshold > 0.7 ? -3 : 3}" dy="6">threshold</text></g>`;
  }

  const description = `Score histogram of ${options.metricName}: ${counts
    .map(
      (count, bin) =>
        `${(bin / BIN_COUNT).toFixed(1)}–${((bin + 1) / BIN_COUNT).toFixed(1)}: ${count}`,
    )
    .join(", ")}`;
  return html`<svg class="histogram" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${description}"><title>${description}</title><line class="histogram-axis" x1="${PLOT_LEFT}" x2="${PLOT_RIGHT}" y1="${PLOT_BOTTOM + 0.5}" y2="${PLOT_BOTTOM + 0.5}"/>${bars}${thresholdLine}${ticks}</svg>`;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

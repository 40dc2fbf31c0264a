import { binScores } from "../score-bins.ts";
import { scoreHistogramLayout } from "../score-histogram-layout.ts";
import { html, type SafeHtml } from "./safe-html.ts";

/** Options of {@link renderScoreHistogram}. */
export interface RenderScoreHistogramOptions {
  metricName: string;
  /** Scores from 0 to 1; values outside are clamped into the first or last bin. */
  scores: readonly number[];
  /** Drawn as a dashed line when every result of the metric had the same threshold. */
  threshold: number | null;
}

/**
 * An inline SVG histogram of scores in 10 bins from 0 to 1, each bar labelled with its count
 * and titled with its range, so it reads without colour and without hovering. The `[0.9, 1]`
 * bin includes 1. The geometry is {@link scoreHistogramLayout}'s, as in the dashboard.
 */
export function renderScoreHistogram(options: RenderScoreHistogramOptions): SafeHtml {
  const layout = scoreHistogramLayout({
    metricName: options.metricName,
    counts: binScores(options.scores),
    threshold: options.threshold,
  });
  const bars = layout.bars.map(
    (bar) =>
      html`<g><title>${bar.title}</title><rect class="histogram-bar" x="${bar.x}" y="${bar.y}" width="${bar.width}" height="${bar.height}"/>${
        bar.label === null
          ? null
          : html`<text class="histogram-count" x="${bar.label.x}" y="${bar.label.y}" text-anchor="middle">${bar.count}</text>`
      }</g>`,
  );
  const ticks = layout.ticks.map(
    (tick) =>
      html`<text class="histogram-tick" x="${tick.x}" y="${tick.y}" text-anchor="${tick.anchor}">${tick.text}</text>`,
  );
  const { threshold, axis } = layout;
  const thresholdLine =
    threshold === null
      ? null
      : html`<g><title>${threshold.title}</title><line class="histogram-threshold" x1="${threshold.x}" x2="${threshold.x}" y1="${threshold.y1}" y2="${threshold.y2}"/><text class="histogram-tick" x="${threshold.x}" y="${threshold.label.y}" text-anchor="${threshold.label.anchor}" dx="${threshold.label.dx}" dy="6">threshold</text></g>`;
  return html`<svg class="histogram" viewBox="0 0 ${layout.width} ${layout.height}" role="img" aria-label="${layout.description}"><title>${layout.description}</title><line class="histogram-axis" x1="${axis.x1}" x2="${axis.x2}" y1="${axis.y}" y2="${axis.y}"/>${bars}${thresholdLine}${ticks}</svg>`;
}

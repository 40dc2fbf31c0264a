import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { useTheme } from "../theme.ts";
import { formatTime } from "./time-text.tsx";

/** One line of a {@link LineChart}. */
export interface ChartSeries {
  label: string;
  /** One value per x; `null` leaves a gap. */
  values: Array<number | null>;
  /** How the legend and axis print a value. */
  format: (value: number) => string;
  /** The CSS variable that colours it, e.g. `--chart-1`. */
  colorVariable: string;
}

const HEIGHT = 220;

/**
 * A colour variable of the stylesheet as the canvas needs it (`rgb(…)`): the variables hold
 * `light-dark(…)`, which only an element's computed colour resolves.
 */
function cssColor(name: string): string {
  const probe = document.createElement("span");
  probe.style.color = `var(${name})`;
  probe.hidden = true;
  document.body.append(probe);
  const color = getComputedStyle(probe).color;
  probe.remove();
  return color || "#888";
}

/**
 * A line chart (uPlot, canvas) of values over runs. `x` are times in seconds since the epoch.
 * Clicking the chart opens the run nearest the cursor (`onPick` with its index). The canvas is
 * hidden from assistive technology: `description` names it, and the page gives the same
 * numbers as a table.
 */
export function LineChart(props: {
  title: string;
  description: string;
  x: number[];
  series: ChartSeries[];
  /** Fixes the y axis (0..1 for scores and rates); else it fits the data. */
  yRange?: [number, number];
  onPick: (index: number) => void;
}) {
  const container = useRef<HTMLDivElement>(null);
  const theme = useTheme();
  const onPick = useRef(props.onPick);
  onPick.current = props.onPick;

  useEffect(() => {
    const element = container.current;
    if (element === null) return;
    const text = cssColor("--text-muted");
    const grid = cssColor("--border");
    const width = Math.max(240, element.clientWidth);
    const axis = (format?: (value: number) => string): uPlot.Axis => ({
      stroke: text,
      grid: { stroke: grid, width: 1 },
      ticks: { stroke: grid, width: 1 },
      ...(format
        ? { values: (_chart, values) => values.map((value) => format(value)), size: 64 }
        : {}),
    });
    const firstFormat = props.series[0]?.format;
    const options: uPlot.Options = {
      width,
      height: HEIGHT,
      // Times read in UTC, as everywhere else in the dashboard.
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC"),
      scales: {
        x: { time: true },
        y: props.yRange ? { range: props.yRange } : { auto: true },
      },
      axes: [axis(), axis(firstFormat)],
      series: [
        {
          label: "Run started",
          value: (_chart, value) =>
            value === null
              ? "–"
              : formatTime(new Date(value * 1000).toISOString(), { withSeconds: false }),
        },
        ...props.series.map(
          (series): uPlot.Series => ({
            label: series.label,
            stroke: cssColor(series.colorVariable),
            width: 2,
            points: { show: true, size: 7, fill: cssColor("--surface") },
            value: (_chart, value) => (value === null ? "–" : series.format(value)),
            spanGaps: false,
          }),
        ),
      ],
      cursor: { points: { size: 9 }, drag: { x: false, y: false } },
      legend: { live: true },
    };
    const data: uPlot.AlignedData = [props.x, ...props.series.map((series) => series.values)];
    const chart = new uPlot(options, data, element);
    const pick = () => {
      const index = chart.cursor.idx;
      if (index !== null && index !== undefined) onPick.current(index);
    };
    chart.over.addEventListener("click", pick);
    chart.over.classList.add("chart-clickable");
    const resize = new ResizeObserver(() => {
      const next = Math.max(240, element.clientWidth);
      if (next !== chart.width) chart.setSize({ width: next, height: HEIGHT });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.over.removeEventListener("click", pick);
      chart.destroy();
    };
  }, [props.x, props.series, props.yRange, theme]);

  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={container} class="chart-canvas" role="img" aria-label={props.description} />
    </figure>
  );
}

import { constants, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";

const MB = 1024 * 1024;

/** Peaks seen by {@link startMemorySampler}, in MB. */
export interface MemoryPeaks {
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  samples: number;
}

/**
 * Samples `process.memoryUsage()` every `intervalMs` (the timer is unref'd, so it never keeps
 * the process alive) and keeps the peaks. `stop()` takes a last sample and returns them.
 */
export function startMemorySampler(options: { intervalMs: number }): { stop(): MemoryPeaks } {
  const peaks: MemoryPeaks = { rssMb: 0, heapUsedMb: 0, heapTotalMb: 0, externalMb: 0, samples: 0 };
  const sample = () => {
    const usage = process.memoryUsage();
    peaks.rssMb = Math.max(peaks.rssMb, usage.rss / MB);
    peaks.heapUsedMb = Math.max(peaks.heapUsedMb, usage.heapUsed / MB);
    peaks.heapTotalMb = Math.max(peaks.heapTotalMb, usage.heapTotal / MB);
    peaks.externalMb = Math.max(peaks.externalMb, usage.external / MB);
    peaks.samples += 1;
  };
  sample();
  const timer = setInterval(sample, options.intervalMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return { ...peaks };
    },
  };
}

/** Event-loop delay while a run was going, in ms (how long callbacks waited for the loop). */
export interface LoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Records event-loop delay until `stop()`. */
export function startLoopDelayMonitor(): { stop(): LoopDelay } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  return {
    stop: () => {
      histogram.disable();
      return {
        p50Ms: histogram.percentile(50) / 1e6,
        p99Ms: histogram.percentile(99) / 1e6,
        maxMs: histogram.max / 1e6,
      };
    },
  };
}

/** Garbage-collection pauses on the main thread while a run was going. */
export interface GcPauses {
  count: number;
  totalMs: number;
  /** Mark-sweep-compact (full) collections. */
  majorCount: number;
  majorMs: number;
}

/** Sums GC pauses (from `gc` performance entries) until `stop()`. */
export function startGcObserver(): { stop(): Promise<GcPauses> } {
  const pauses: GcPauses = { count: 0, totalMs: 0, majorCount: 0, majorMs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      pauses.count += 1;
      pauses.totalMs += entry.duration;
      const kind = (entry as { detail?: { kind?: number } | null }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        pauses.majorCount += 1;
        pauses.majorMs += entry.duration;
      }
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return {
    stop: async () => {
      // Entries are delivered asynchronously: let the last ones arrive.
      await new Promise((resolve) => setImmediate(resolve));
      observer.disconnect();
      return { ...pauses };
    },
  };
}

/** Peak resident set size of this process since it started, in MB. */
export function maxRssMb(): number {
  // resourceUsage().maxRSS is in kilobytes.
  return process.resourceUsage().maxRSS / 1024;
}

/** CPU time of this process (all threads, user + system) since `start`, in ms. */
export function cpuSince(start: NodeJS.CpuUsage): {
  userMs: number;
  systemMs: number;
  totalMs: number;
} {
  const used = process.cpuUsage(start);
  return {
    userMs: used.user / 1000,
    systemMs: used.system / 1000,
    totalMs: (used.user + used.system) / 1000,
  };
}

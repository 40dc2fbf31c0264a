/**
 * The event-loop delay that sharing the CPUs alone costs: N processes, each busy in tasks of
 * `--chunk` ms with nothing blocking between them (setImmediate), as the shards of the
 * team-store bench are at 0 ms judge latency. Each process measures how late its timers fire
 * (`monitorEventLoopDelay`, 10 ms resolution, as team-store-shard.ts does) for `--seconds`.
 * What it prints is the floor under any store's figure on this machine: with more busy
 * processes than cores, the operating system's scheduler alone delays every loop.
 *   node bench/loop-delay-floor.ts [--processes 8] [--chunk 1] [--seconds 10]
 */
import { fork } from "node:child_process";
import { cpus } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    processes: { type: "string", default: "8" },
    chunk: { type: "string", default: "1" },
    seconds: { type: "string", default: "10" },
    child: { type: "boolean", default: false },
  },
});
const chunkMs = Number(values.chunk);
const seconds = Number(values.seconds);

interface Delay {
  p50: number;
  p99: number;
  max: number;
}

if (values.child) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const end = Date.now() + seconds * 1000;
  const spin = () => {
    const until = performance.now() + chunkMs;
    while (performance.now() < until) {
      // busy, as a shard handling judge answers at 0 ms latency
    }
    if (Date.now() < end) {
      setImmediate(spin);
      return;
    }
    delay.disable();
    const figures: Delay = {
      p50: delay.percentile(50) / 1e6,
      p99: delay.percentile(99) / 1e6,
      max: delay.max / 1e6,
    };
    process.send?.(figures);
  };
  spin();
} else {
  const count = Number(values.processes);
  const script = fileURLToPath(import.meta.url);
  const delays = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Delay>((resolve, reject) => {
          const child = fork(script, [
            "--child",
            "--chunk",
            String(chunkMs),
            "--seconds",
            String(seconds),
          ]);
          child.once("message", (message) => {
            resolve(message as Delay);
            child.kill();
          });
          child.once("error", reject);
        }),
    ),
  );
  const worst = delays.reduce((left, right) => (right.p99 > left.p99 ? right : left));
  console.log(
    `${count} busy processes on ${cpus().length} CPUs, ${chunkMs} ms tasks, ${seconds} s: ` +
      `event-loop delay p99 ${worst.p99.toFixed(1)} ms in the worst process ` +
      `(max ${worst.max.toFixed(1)} ms; p99 of each: ${delays.map((delay) => delay.p99.toFixed(0)).join(", ")} ms)`,
  );
}

// Summarises a V8 .cpuprofile (from `--profile`, or `node --cpu-prof`): where the CPU time went,
// by function (self and total time) and by file or package.
//   node bench/summarize-profile.ts bench/results/overhead.cpuprofile [--top 25]
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** One line of the summary: a function, or a file / package. */
export interface ProfileEntry {
  name: string;
  where: string;
  selfMs: number;
  selfPct: number;
  totalMs: number;
  totalPct: number;
}

/** CPU time charged to the innermost verdict function on the stack, and where it was spent. */
export interface CallerEntry {
  name: string;
  where: string;
  ms: number;
  pct: number;
  /** The top files or packages the time was spent in, with their share of all CPU. */
  spentIn: string;
}

const NO_CALLER = "(no verdict frame on the stack: event loop, I/O callbacks, GC)\t";

const projectRoot = fileURLToPath(new URL("..", import.meta.url));

/** Where a frame comes from: a verdict source file, a package, Node itself, or V8. */
function locate(url: string): string {
  if (url === "") return "(V8 / native)";
  if (url.startsWith("node:")) return url;
  const path = url.startsWith("file://") ? fileURLToPath(url) : url;
  const modules = path.lastIndexOf("/node_modules/");
  if (modules !== -1) {
    const rest = path.slice(modules + "/node_modules/".length).split("/");
    const name = rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
    return `${name} (${rest.slice(rest[0]?.startsWith("@") ? 2 : 1).join("/")})`;
  }
  return path.startsWith(projectRoot) ? path.slice(projectRoot.length) : path;
}

/** The package or verdict file a location belongs to, for the per-file table. */
function group(where: string): string {
  const space = where.indexOf(" (");
  return space !== -1 && !where.startsWith("(") ? where.slice(0, space) : where;
}

/**
 * Self time (the function itself was on top of the stack) and total time (anywhere on the
 * stack, counted once per sample even when recursive) per function and per file or package.
 * Idle time is left out of the percentages.
 */
export function summarizeProfile(profile: CpuProfile): {
  totalMs: number;
  byFunction: ProfileEntry[];
  byFile: ProfileEntry[];
  byVerdictCaller: CallerEntry[];
} {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const functionKey = (node: ProfileNode) => {
    const where = locate(node.callFrame.url);
    const line = node.callFrame.url === "" ? "" : `:${node.callFrame.lineNumber + 1}`;
    return `${node.callFrame.functionName || "(anonymous)"}\t${where}${line}`;
  };
  const fileKey = (node: ProfileNode) => group(locate(node.callFrame.url));
  const self = { function: new Map<string, number>(), file: new Map<string, number>() };
  const total = { function: new Map<string, number>(), file: new Map<string, number>() };
  const add = (map: Map<string, number>, key: string, ms: number) =>
    map.set(key, (map.get(key) ?? 0) + ms);
  const callers = new Map<string, Map<string, number>>();
  let busyMs = 0;
  profile.samples.forEach((id, index) => {
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === "(idle)") return;
    busyMs += ms;
    add(self.function, functionKey(node), ms);
    add(self.file, fileKey(node), ms);
    const seenFunctions = new Set<string>();
    const seenFiles = new Set<string>();
    let caller: string | null = null;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at) as ProfileNode;
      if (frame.callFrame.functionName === "(root)") continue;
      const key = functionKey(frame);
      seenFunctions.add(key);
      seenFiles.add(fileKey(frame));
      if (caller === null && locate(frame.callFrame.url).startsWith("src/")) caller = key;
    }
    const spentIn = callers.get(caller ?? NO_CALLER) ?? new Map<string, number>();
    callers.set(caller ?? NO_CALLER, spentIn);
    add(spentIn, fileKey(node), ms);
    for (const key of seenFunctions) add(total.function, key, ms);
    for (const key of seenFiles) add(total.file, key, ms);
  });
  const entries = (selfMap: Map<string, number>, totalMap: Map<string, number>) =>
    [...totalMap.keys()]
      .map((key) => {
        const [name = key, where = ""] = key.split("\t");
        const selfMs = selfMap.get(key) ?? 0;
        const totalMs = totalMap.get(key) ?? 0;
        return {
          name,
          where,
          selfMs,
          selfPct: (100 * selfMs) / busyMs,
          totalMs,
          totalPct: (100 * totalMs) / busyMs,
        };
      })
      .sort((a, b) => b.selfMs - a.selfMs);
  const byVerdictCaller = [...callers.entries()]
    .map(([key, spentIn]) => {
      const [name = key, where = ""] = key.split("\t");
      const ms = [...spentIn.values()].reduce((sum, value) => sum + value, 0);
      const top = [...spentIn.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([bucket, bucketMs]) => `${bucket} ${((100 * bucketMs) / busyMs).toFixed(1)} %`);
      return { name, where, ms, pct: (100 * ms) / busyMs, spentIn: top.join(", ") };
    })
    .sort((a, b) => b.ms - a.ms);
  return {
    totalMs: busyMs,
    byFunction: entries(self.function, total.function),
    byFile: entries(self.file, total.file),
    byVerdictCaller,
  };
}

/** The summary as Markdown: top functions by self time, top files by self time, and top verdict functions by total time. */
export function profileMarkdown(options: { title: string; file: string; top: number }): string {
  const profile = JSON.parse(readFileSync(options.file, "utf8")) as CpuProfile;
  const summary = summarizeProfile(profile);
  const table = (entries: ProfileEntry[], withWhere: boolean) => [
    withWhere
      ? "| function | where | self ms | self % | total % |"
      : "| file or package | self ms | self % | total % |",
    withWhere ? "|---|---|---|---|---|" : "|---|---|---|---|",
    ...entries.map((entry) =>
      withWhere
        ? `| ${entry.name} | ${entry.where} | ${entry.selfMs.toFixed(0)} | ${entry.selfPct.toFixed(1)} | ${entry.totalPct.toFixed(1)} |`
        : `| ${entry.name} | ${entry.selfMs.toFixed(0)} | ${entry.selfPct.toFixed(1)} | ${entry.totalPct.toFixed(1)} |`,
    ),
  ];
  const verdictByTotal = summary.byFunction
    .filter((entry) => entry.where.startsWith("src/"))
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, options.top);
  const callers = [
    "| innermost verdict function | where | ms | % of CPU | spent in |",
    "|---|---|---|---|---|",
    ...summary.byVerdictCaller
      .slice(0, options.top)
      .map(
        (entry) =>
          `| ${entry.name} | ${entry.where} | ${entry.ms.toFixed(0)} | ${entry.pct.toFixed(1)} | ${entry.spentIn} |`,
      ),
  ];
  return [
    `## CPU profile: ${options.title}`,
    "",
    `${options.file}: ${summary.totalMs.toFixed(0)} ms of CPU samples (idle excluded). Self = the function itself was running; total = it was anywhere on the stack.`,
    "",
    "### Top functions by self time",
    "",
    ...table(summary.byFunction.slice(0, options.top), true),
    "",
    "### By file or package (self time)",
    "",
    ...table(summary.byFile.slice(0, options.top), false),
    "",
    "### verdict's own functions by total time",
    "",
    ...table(verdictByTotal, true),
    "",
    "### Time charged to the innermost verdict function on the stack",
    "",
    "Each sample goes to the nearest verdict (src/) frame above it, with the library code it called (zod, the AI SDK…); work resumed by the event loop after an await has no verdict frame.",
    "",
    ...callers,
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: "string", default: "25" } },
  });
  if (positionals.length === 0) {
    console.error("usage: node bench/summarize-profile.ts <file.cpuprofile> [--top 25]");
    process.exit(2);
  }
  for (const file of positionals) {
    console.log(profileMarkdown({ title: file, file, top: Number(values.top) }));
  }
}

import type * as NodeSqlite from "node:sqlite";
import { describe, expect, it } from "vitest";
import { StoreError } from "../errors/store-error.ts";
import {
  isSqliteExperimentalWarning,
  loadNodeSqlite,
  type SqliteHost,
} from "./load-node-sqlite.ts";
import { nodeHasSqlite, unsupportedNodeMessage } from "./node-sqlite-support.ts";

const SQLITE_WARNING = "SQLite is an experimental feature and might change at any time";
const FAKE_MODULE = { DatabaseSync: class {} } as unknown as typeof NodeSqlite;

/** A `process` stand-in whose node:sqlite emits warnings as Node 22's does while it loads. */
function fakeHost(options: { version: string; emitWhileLoading: (host: SqliteHost) => void }) {
  const emitted: unknown[][] = [];
  const host: SqliteHost = {
    versions: { node: options.version },
    emitWarning: ((...args: unknown[]) => {
      emitted.push(args);
    }) as typeof process.emitWarning,
    getBuiltinModule: () => {
      options.emitWhileLoading(host);
      return FAKE_MODULE;
    },
  };
  return { host, emitted };
}

describe("nodeHasSqlite", () => {
  it.each([
    ["20.20.2", false],
    ["22.12.0", false],
    ["22.13.0", true],
    ["22.23.3", true],
    ["23.3.0", false],
    ["23.4.0", true],
    ["24.21.0", true],
    ["26.0.0", true],
  ])("Node %s: %s", (version, expected) => {
    expect(nodeHasSqlite(version)).toBe(expected);
  });
});

describe("loadNodeSqlite", () => {
  it("drops the SQLite ExperimentalWarning, in each form Node can emit it", () => {
    const { host, emitted } = fakeHost({
      version: "22.13.0",
      emitWhileLoading: (loading) => {
        loading.emitWarning(SQLITE_WARNING, "ExperimentalWarning");
        loading.emitWarning(SQLITE_WARNING, { type: "ExperimentalWarning" });
        loading.emitWarning(
          Object.assign(new Error(SQLITE_WARNING), { name: "ExperimentalWarning" }),
        );
      },
    });
    expect(loadNodeSqlite(host)).toBe(FAKE_MODULE);
    expect(emitted).toEqual([]);
  });

  it("passes every other warning on, and restores emitWarning afterwards", () => {
    const { host, emitted } = fakeHost({
      version: "24.0.0",
      emitWhileLoading: (loading) => {
        loading.emitWarning("Fetch is an experimental feature", "ExperimentalWarning");
        loading.emitWarning(SQLITE_WARNING, "DeprecationWarning", "DEP0000");
      },
    });
    const emitWarning = host.emitWarning;
    loadNodeSqlite(host);
    expect(emitted).toEqual([
      ["Fetch is an experimental feature", "ExperimentalWarning"],
      [SQLITE_WARNING, "DeprecationWarning", "DEP0000"],
    ]);
    expect(host.emitWarning).toBe(emitWarning);
    host.emitWarning(SQLITE_WARNING, "ExperimentalWarning");
    expect(emitted).toHaveLength(3);
  });

  it("restores emitWarning when loading throws", () => {
    const { host } = fakeHost({
      version: "22.13.0",
      emitWhileLoading: () => {
        throw new Error("No such built-in module: node:sqlite");
      },
    });
    const emitWarning = host.emitWarning;
    expect(() => loadNodeSqlite(host)).toThrow("No such built-in module");
    expect(host.emitWarning).toBe(emitWarning);
  });

  it("names the Node.js version needed instead of loading on an older Node", () => {
    let loaded = false;
    const { host } = fakeHost({
      version: "20.20.2",
      emitWhileLoading: () => {
        loaded = true;
      },
    });
    expect(() => loadNodeSqlite(host)).toThrow(StoreError);
    expect(() => loadNodeSqlite(host)).toThrow(unsupportedNodeMessage("20.20.2"));
    expect(unsupportedNodeMessage("20.20.2")).toMatch(
      /needs Node\.js >= 22\.13.*this is Node\.js 20\.20\.2/,
    );
    expect(loaded).toBe(false);
  });
});

describe("isSqliteExperimentalWarning", () => {
  it("matches only SQLite's ExperimentalWarning", () => {
    expect(isSqliteExperimentalWarning(SQLITE_WARNING, "ExperimentalWarning")).toBe(true);
    expect(isSqliteExperimentalWarning(SQLITE_WARNING, undefined)).toBe(false);
    expect(
      isSqliteExperimentalWarning("VM Modules is an experimental feature", "ExperimentalWarning"),
    ).toBe(false);
  });
});

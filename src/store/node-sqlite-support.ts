// No imports: the `verdict` bin loads this module first, on whatever Node runs it.

/** The Node.js versions that have `node:sqlite` without a flag, as users read it. */
export const SQLITE_NODE_VERSIONS = ">= 22.13";

/**
 * Whether this Node.js version has `node:sqlite` without a flag: 22.13+, 23.4+ and 24+.
 * @example
 * nodeHasSqlite(process.versions.node);
 */
export function nodeHasSqlite(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  if (major === 22) return minor >= 13;
  if (major === 23) return minor >= 4;
  return major > 23;
}

/** The one line that says which Node.js verdict needs, for a version without `node:sqlite`. */
export function unsupportedNodeMessage(version: string): string {
  return (
    `verdict needs Node.js ${SQLITE_NODE_VERSIONS} (24 LTS recommended) for its built-in SQLite ` +
    `store (node:sqlite); this is Node.js ${version}. Upgrade Node.js, e.g. "nvm install 24".`
  );
}

import { createHash } from "node:crypto";

/** Room for the tests of one file in an index: 10^10 (up to 100,000 tests of 100,000 cases). */
export const FILE_STRIDE = 10_000_000_000;
/** Room for the cases of one test in an index. */
export const TEST_STRIDE = 100_000;

/** Where a case sits in a Vitest run. */
export interface CasePosition {
  /** The test file, relative to the Vitest root (with `/`). */
  file: string;
  /** Position of the test among its file's tests (depth first, skipped tests included). */
  testPosition: number;
  /** The test's full name. */
  testName: string;
  /** Position of the assertion within the test. */
  caseIndex: number;
}

/** Options of {@link CaseIndexer}. */
export interface CaseIndexerOptions {
  /**
   * Every test file of the suite, before any sharding: a file's rank among them is part of
   * its cases' indices, so that each shard indexes its cases as the whole run would.
   */
  files: readonly string[];
}

/** Options of {@link fingerprintCase}. */
export interface FingerprintCaseOptions {
  file: string;
  testName: string;
  caseIndex: number;
}

/**
 * The fingerprint stored with a gathered case: a hash of its test file, the test's full name
 * and its position within the test.
 * @example
 * fingerprintCase({ file: "evals/chat.eval.ts", testName: "greets", caseIndex: 0 });
 */
export function fingerprintCase(options: FingerprintCaseOptions): string {
  return createHash("sha256")
    .update(JSON.stringify([options.file, options.testName, options.caseIndex]))
    .digest("hex");
}

/**
 * Gives every case of a Vitest run an `index` that depends only on where the case is in the
 * suite, never on which worker finished first or on sharding:
 * `fileRank × 10^10 + testPosition × 10^5 + caseIndex`, where `fileRank` is the file's rank
 * among all test files sorted by path. Results sorted by index are in file, then test order,
 * and shards of one suite merge without clashes. A case past a stride (over 100,000
 * assertions in one test) takes the next free index.
 * @example
 * const indexer = new CaseIndexer({ files: ["a.eval.ts", "b.eval.ts"] });
 * indexer.indexOf({ file: "b.eval.ts", testPosition: 2, testName: "t", caseIndex: 0 }); // 10000200000
 */
export class CaseIndexer {
  private readonly ranks = new Map<string, number>();
  private readonly used = new Map<number, string>();

  constructor(options: CaseIndexerOptions) {
    const sorted = [...new Set(options.files)].sort();
    sorted.forEach((file, rank) => {
      this.ranks.set(file, rank);
    });
  }

  /** The index of a case; the same position always gets the same index. */
  indexOf(position: CasePosition): number {
    const identity = JSON.stringify([position.file, position.testName, position.caseIndex]);
    let index =
      this.rankOf(position.file) * FILE_STRIDE +
      position.testPosition * TEST_STRIDE +
      position.caseIndex;
    while (this.used.has(index) && this.used.get(index) !== identity) index += 1;
    this.used.set(index, identity);
    return index;
  }

  // A file not in the list (run by an explicit path) is ranked after the listed ones.
  private rankOf(file: string): number {
    let rank = this.ranks.get(file);
    if (rank === undefined) {
      rank = this.ranks.size;
      this.ranks.set(file, rank);
    }
    return rank;
  }
}

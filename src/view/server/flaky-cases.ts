import { findFlakyCases } from "../../results/summarize-run.ts";
import type { FlakyCaseView } from "../api.ts";
import type { LoadedRun } from "./loaded-run.ts";

/** A run's flaky cases (as its summary lists them), each with the key of its case page. */
export function flakyCasesOf(loaded: LoadedRun): FlakyCaseView[] {
  // findFlakyCases counts places in index order, the order the store gives results in.
  const ordered = [...loaded.entries].sort((left, right) => left.result.index - right.result.index);
  return findFlakyCases(loaded.results).flatMap((flaky) => {
    const entry = ordered[flaky.position - 1];
    return entry === undefined ? [] : [{ ...flaky, key: entry.key }];
  });
}

import type { RunOwner } from "./run-store.ts";

/** What is wrong with a run owner given to a store, or `null` when it can be stored. */
export function checkOwner(owner: RunOwner): string | null {
  if (!Number.isSafeInteger(owner.pid) || owner.pid <= 0) {
    return "owner.pid must be a positive integer";
  }
  if (typeof owner.hostname !== "string" || owner.hostname === "") {
    return "owner.hostname must be a non-empty string";
  }
  if (typeof owner.heartbeatAt !== "string" || Number.isNaN(Date.parse(owner.heartbeatAt))) {
    return "owner.heartbeatAt must be an ISO time";
  }
  return null;
}

import { InvalidArgumentError } from "commander";
import { type OutputRequest, parseOutputRequest } from "../output-targets.ts";

// Each parser turns a flag's text into its value, or throws commander's InvalidArgumentError
// with a sentence that shows a valid value.

/** A parser of a whole number of 1 or more, for `flag`. */
export function wholeNumber(flag: string) {
  return (value: string): number => {
    const number = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
      throw new InvalidArgumentError(`${flag} takes a whole number of 1 or more, e.g. ${flag} 4.`);
    }
    return number;
  };
}

/** `--shard i/n`: shard i of n, as `i/n`. */
export function shard(value: string): string {
  const match = /^\s*(\d+)\/(\d+)\s*$/.exec(value);
  const [index, count] = [Number(match?.[1]), Number(match?.[2])];
  if (match === null || index < 1 || index > count) {
    throw new InvalidArgumentError("--shard takes i/n with 1 <= i <= n, e.g. --shard 1/3.");
  }
  return `${index}/${count}`;
}

/** `--max-drop`: a number of 0 or more. */
export function maxDrop(value: string): number {
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number) || number < 0) {
    throw new InvalidArgumentError("--max-drop takes a number of 0 or more, e.g. --max-drop 0.05.");
  }
  return number;
}

/** `--threshold`: a number from 0 to 1. */
export function threshold(value: string): number {
  const number = Number(value);
  if (value.trim() === "" || !(number >= 0 && number <= 1)) {
    throw new InvalidArgumentError("--threshold takes a number from 0 to 1, e.g. --threshold 0.5.");
  }
  return number;
}

/** `--alpha`: a number between 0 and 1. */
export function alpha(value: string): number {
  const number = Number(value);
  if (value.trim() === "" || !(number > 0 && number < 1)) {
    throw new InvalidArgumentError("--alpha takes a number between 0 and 1, e.g. --alpha 0.05.");
  }
  return number;
}

/** A parser of a whole number of 0 or more, for `flag`. */
export function countOrZero(flag: string) {
  return (value: string): number => {
    const number = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(number)) {
      throw new InvalidArgumentError(`${flag} takes a whole number of 0 or more, e.g. ${flag} 20.`);
    }
    return number;
  };
}

/** `--max-cost`: dollars above 0, with or without a leading `$`. */
export function dollars(value: string): number {
  const number = Number(value.trim().replace(/^\$/, ""));
  if (value.trim() === "" || !Number.isFinite(number) || number <= 0) {
    throw new InvalidArgumentError("--max-cost takes dollars above 0, e.g. --max-cost 2.50.");
  }
  return number;
}

/** `--poll-interval`: a number of seconds above 0. */
export function positiveSeconds(value: string): number {
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number) || number <= 0) {
    throw new InvalidArgumentError(
      "--poll-interval takes a number of seconds above 0, e.g. --poll-interval 60.",
    );
  }
  return number;
}

/** A parser that refuses an empty value of `flag`. */
export function nonEmpty(flag: string) {
  return (value: string): string => {
    if (value.trim() === "") throw new InvalidArgumentError(`${flag} must not be empty.`);
    return value;
  };
}

/** `--output format[=path]`, repeatable: the requests so far and this one. */
export function outputRequest(
  value: string,
  previous: OutputRequest[] | undefined,
): OutputRequest[] {
  const request = parseOutputRequest(value);
  if (typeof request === "string") throw new InvalidArgumentError(request);
  return [...(previous ?? []), request];
}

/**
 * One budget for every Vitest worker of `verdict test run --max-cost/--max-tokens`. The
 * command keeps the {@link BudgetLedger} (a small server on the loopback interface,
 * {@link startBudgetBroker}); each worker's scheduler reserves through it before each judge
 * call and settles after ({@link connectBudget}), so the caps hold across workers as in one
 * process. A worker that cannot reach it sends no judge call (a budget that cannot be checked
 * is not kept by guessing).
 *
 * One JSON object per line. Worker → broker: `{"t":"v","id":1,"c":0.02,"k":6000,"p":3}`
 * (reserve cost `c` and tokens `k` at priority `p`), `{"t":"s","id":1,"c":0.003,"k":1400}`
 * (settle), `{"t":"r","id":1,"b":true}` (release; `b`: may have been billed), `{"t":"c","id":1}`
 * (cancel a reserve still waiting). Broker → worker: `{"t":"g","id":1}` (granted),
 * `{"t":"x","id":1,"e":{…}}` (refused: the budget is exhausted, with what was spent). A worker
 * whose connection closes leaves its reservations counted whole: they may have been billed.
 */

import { connect, createServer, type Socket } from "node:net";
import {
  BudgetExhaustedError,
  type BudgetExhaustedErrorOptions,
} from "../errors/budget-exhausted-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import type {
  BudgetAmount,
  BudgetLedger,
  BudgetReservation,
  BudgetState,
  JudgeBudget,
} from "../evaluate/budget/judge-budget.ts";
import { onLines } from "./request-slots.ts";

/** The environment variable that tells workers where the budget is kept, and its caps (JSON). */
export const BUDGET_ENV = "VERDICT_BUDGET";

/** What {@link BUDGET_ENV} holds. */
interface BudgetAddress {
  address: string;
  maxCostUsd: number | null;
  maxTokens: number | null;
}

/** The broker started by {@link startBudgetBroker}. */
export interface BudgetBroker {
  /** The value of {@link BUDGET_ENV} for the workers. */
  environment: string;
  close(): Promise<void>;
}

/**
 * Keeps `ledger` for the workers on 127.0.0.1 (an ephemeral port).
 * @example
 * const broker = await startBudgetBroker({ ledger: new BudgetLedger({ maxCostUsd: 5 }) });
 * env[BUDGET_ENV] = broker.environment;
 */
export async function startBudgetBroker(options: { ledger: BudgetLedger }): Promise<BudgetBroker> {
  const { ledger } = options;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    const held = new Map<number, BudgetReservation>();
    const waiting = new Map<number, AbortController>();
    const send = (message: object) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
    };
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      sockets.delete(socket);
      for (const controller of waiting.values()) controller.abort(new Error("worker gone"));
      for (const reservation of held.values()) reservation.release({ billed: true });
      held.clear();
    });
    onLines(socket, (message) => {
      const id = message.id;
      if (typeof id !== "number") return;
      if (message.t === "v") {
        const controller = new AbortController();
        waiting.set(id, controller);
        ledger
          .reserve(
            { costUsd: Number(message.c) || 0, tokens: Number(message.k) || 0 },
            { signal: controller.signal, priority: Number(message.p) || 0 },
          )
          .then(
            (reservation) => {
              waiting.delete(id);
              if (socket.destroyed) reservation.release({ billed: false });
              else {
                held.set(id, reservation);
                send({ t: "g", id });
              }
            },
            (error: unknown) => {
              waiting.delete(id);
              if (error instanceof BudgetExhaustedError) {
                send({ t: "x", id, e: exhaustedFields(error) });
              }
            },
          );
      } else if (message.t === "s") {
        held.get(id)?.settle({ costUsd: Number(message.c) || 0, tokens: Number(message.k) || 0 });
        held.delete(id);
      } else if (message.t === "r") {
        held.get(id)?.release({ billed: message.b === true });
        held.delete(id);
      } else if (message.t === "c") {
        waiting.get(id)?.abort(new Error("cancelled"));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as { port: number };
  const address: BudgetAddress = {
    address: `127.0.0.1:${port}`,
    maxCostUsd: ledger.limits.maxCostUsd,
    maxTokens: ledger.limits.maxTokens,
  };
  return {
    environment: JSON.stringify(address),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function exhaustedFields(error: BudgetExhaustedError): BudgetExhaustedErrorOptions {
  return {
    maxCostUsd: error.maxCostUsd,
    maxTokens: error.maxTokens,
    spentCostUsd: error.spentCostUsd,
    spentTokens: error.spentTokens,
    nextCostUsd: error.nextCostUsd,
    nextTokens: error.nextTokens,
  };
}

/**
 * A worker's side of the broker that {@link BUDGET_ENV} names: a {@link JudgeBudget} for its
 * scheduler. When the broker cannot be reached, every reservation is refused (the run stops
 * rather than spend unchecked).
 */
export function connectBudget(environment: string): JudgeBudget {
  const target = JSON.parse(environment) as BudgetAddress;
  const host = target.address.slice(0, target.address.lastIndexOf(":"));
  const port = Number(target.address.slice(target.address.lastIndexOf(":") + 1));
  let socket: Socket | null = null;
  let broken: Error | null = null;
  let nextId = 1;
  const pending = new Map<number, { grant: () => void; refuse: (error: Error) => void }>();
  const unreachable = () =>
    new EvalError(
      "ABORTED",
      "The budget of verdict test run (--max-cost, --max-tokens) cannot be reached from this worker: no judge call is sent without it.",
    );
  const fail = () => {
    broken ??= unreachable();
    for (const waiter of pending.values()) waiter.refuse(broken);
    pending.clear();
  };
  const open = (): Socket | null => {
    if (broken !== null) return null;
    if (socket !== null) return socket;
    const opened = connect({ host, port });
    opened.unref();
    opened.setNoDelay(true);
    opened.on("error", fail);
    opened.on("close", fail);
    onLines(opened, (message) => {
      if (typeof message.id !== "number") return;
      const waiter = pending.get(message.id);
      if (waiter === undefined) return;
      pending.delete(message.id);
      if (message.t === "g") waiter.grant();
      else if (message.t === "x") {
        waiter.refuse(new BudgetExhaustedError(message.e as BudgetExhaustedErrorOptions));
      }
    });
    socket = opened;
    return opened;
  };
  const write = (connection: Socket, message: object) => {
    if (broken === null) connection.write(`${JSON.stringify(message)}\n`);
  };
  return {
    limits: { maxCostUsd: target.maxCostUsd, maxTokens: target.maxTokens },
    reserve(amount: BudgetAmount, options = {}): Promise<BudgetReservation> {
      const connection = open();
      if (connection === null) return Promise.reject(broken ?? unreachable());
      const { signal } = options;
      if (signal?.aborted) return Promise.reject(signal.reason);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          pending.delete(id);
          write(connection, { t: "c", id });
          // Granted meanwhile or not, nothing is owed: a grant that crosses the cancel is released.
          write(connection, { t: "r", id, b: false });
          reject(signal?.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        pending.set(id, {
          grant: () => {
            signal?.removeEventListener("abort", onAbort);
            let closed = false;
            resolve({
              settle: (spent) => {
                if (closed) return;
                closed = true;
                const counted = spent ?? amount;
                write(connection, { t: "s", id, c: counted.costUsd, k: counted.tokens });
              },
              release: ({ billed }) => {
                if (closed) return;
                closed = true;
                write(connection, { t: "r", id, b: billed });
              },
            });
          },
          refuse: (error) => {
            signal?.removeEventListener("abort", onAbort);
            reject(error);
          },
        });
        write(connection, {
          t: "v",
          id,
          c: amount.costUsd,
          k: amount.tokens,
          p: options.priority ?? 0,
        });
      });
    },
    // What is spent is the command's to tell (it keeps the ledger); a worker knows its caps.
    async state(): Promise<BudgetState | null> {
      return null;
    },
  };
}

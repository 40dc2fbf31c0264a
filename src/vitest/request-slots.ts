/**
 * One judge-request limit across Vitest's worker processes. `verdict test run` runs several eval
 * files at once, each in its own worker with its own scheduler; without a shared limit, `-n 20`
 * would mean 20 requests per worker. The CLI process keeps the slots (a small server on the
 * loopback interface, {@link startRequestSlotBroker}); each worker asks it for a slot before each
 * judge request and gives it back after ({@link connectRequestSlots}). A round trip costs well
 * under a millisecond, next to a judge's hundreds.
 *
 * The protocol is one JSON object per line. Worker → broker: `{"t":"a","id":1,"m":"openai:gpt-4.1","p":3}`
 * (acquire for model `m` with priority `p`, lower first), `{"t":"r","id":1}` (release, or cancel a
 * pending acquire). Broker → worker: `{"t":"g","id":1}` (granted). A worker whose connection
 * closes gives back every slot it held.
 */

import { connect, createServer, type Socket } from "node:net";
import { queuePosition } from "../evaluate/model-lane.ts";
import type { RequestGate } from "../evaluate/request-gate.ts";

/** The environment variable that tells workers where the broker listens (`127.0.0.1:port`). */
export const REQUEST_SLOTS_ENV = "VERDICT_REQUEST_SLOTS";

interface Waiter {
  socket: Socket;
  id: number;
  priority: number;
}

interface ModelSlots {
  inFlight: number;
  waiting: Waiter[];
}

/** Reads newline-delimited JSON objects from a socket; malformed lines are ignored. */
export function onLines(socket: Socket, handle: (message: Record<string, unknown>) => void): void {
  let buffered = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffered += chunk;
    let end = buffered.indexOf("\n");
    while (end !== -1) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      try {
        const message = JSON.parse(line) as unknown;
        if (typeof message === "object" && message !== null) {
          handle(message as Record<string, unknown>);
        }
      } catch {
        // Not one of ours: nothing to do.
      }
      end = buffered.indexOf("\n");
    }
  });
}

/** The broker started by {@link startRequestSlotBroker}. */
export interface RequestSlotBroker {
  /** `127.0.0.1:<port>`, for {@link REQUEST_SLOTS_ENV}. */
  address: string;
  /** Most requests that were in flight at once to one model (for tests and benches). */
  readonly peakInFlight: number;
  close(): Promise<void>;
}

/**
 * Starts the slot keeper on 127.0.0.1 (an ephemeral port): at most `maxConcurrent` slots per
 * judge model across every connected worker, queued requests granted by priority (lower
 * first), then first come.
 * @example
 * const broker = await startRequestSlotBroker({ maxConcurrent: 20 });
 * env[REQUEST_SLOTS_ENV] = broker.address;
 */
export async function startRequestSlotBroker(options: {
  maxConcurrent: number;
}): Promise<RequestSlotBroker> {
  const models = new Map<string, ModelSlots>();
  /** Per connection: granted slots by request id (with their model), pending ids by model. */
  const held = new Map<Socket, Map<number, string>>();
  let peakInFlight = 0;

  const slotsOf = (model: string): ModelSlots => {
    let slots = models.get(model);
    if (slots === undefined) {
      slots = { inFlight: 0, waiting: [] };
      models.set(model, slots);
    }
    return slots;
  };
  const pump = (model: string) => {
    const slots = slotsOf(model);
    while (slots.inFlight < options.maxConcurrent && slots.waiting.length > 0) {
      const waiter = slots.waiting.shift() as Waiter;
      if (waiter.socket.destroyed) continue;
      slots.inFlight += 1;
      peakInFlight = Math.max(peakInFlight, slots.inFlight);
      held.get(waiter.socket)?.set(waiter.id, model);
      waiter.socket.write(`${JSON.stringify({ t: "g", id: waiter.id })}\n`);
    }
  };
  const release = (socket: Socket, id: number) => {
    const model = held.get(socket)?.get(id);
    if (model !== undefined) {
      held.get(socket)?.delete(id);
      slotsOf(model).inFlight -= 1;
      pump(model);
      return;
    }
    // Not granted yet: a cancelled acquire leaves the queue.
    for (const slots of models.values()) {
      const position = slots.waiting.findIndex(
        (waiter) => waiter.socket === socket && waiter.id === id,
      );
      if (position !== -1) slots.waiting.splice(position, 1);
    }
  };

  const server = createServer((socket) => {
    held.set(socket, new Map());
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      const mine = held.get(socket) ?? new Map<number, string>();
      held.delete(socket);
      const touched = new Set(mine.values());
      for (const model of mine.values()) slotsOf(model).inFlight -= 1;
      for (const [model, slots] of models) {
        const before = slots.waiting.length;
        slots.waiting = slots.waiting.filter((waiter) => waiter.socket !== socket);
        if (slots.waiting.length !== before) touched.add(model);
      }
      for (const model of touched) pump(model);
    });
    onLines(socket, (message) => {
      const id = message.id;
      if (typeof id !== "number") return;
      if (message.t === "a" && typeof message.m === "string") {
        const priority = typeof message.p === "number" ? message.p : 0;
        const slots = slotsOf(message.m);
        slots.waiting.splice(queuePosition(slots.waiting, priority), 0, { socket, id, priority });
        pump(message.m);
      } else if (message.t === "r") {
        release(socket, id);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${port}`,
    get peakInFlight() {
      return peakInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of held.keys()) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A worker's side of the broker at `address`: a {@link RequestGate} for its scheduler. If the
 * broker cannot be reached (or goes away), requests go on without the shared limit — each
 * worker's own limit still holds — rather than wait for ever.
 */
export function connectRequestSlots(address: string): RequestGate {
  const [host, portText] = [
    address.slice(0, address.lastIndexOf(":")),
    address.slice(address.lastIndexOf(":") + 1),
  ];
  let socket: Socket | null = null;
  let broken = false;
  let nextId = 1;
  const pending = new Map<number, () => void>();

  const failOpen = () => {
    broken = true;
    for (const grant of pending.values()) grant();
    pending.clear();
  };
  const open = (): Socket | null => {
    if (broken) return null;
    if (socket !== null) return socket;
    const opened = connect({ host, port: Number(portText) });
    // The worker may exit with slots held: the broker frees them when the connection closes.
    opened.unref();
    opened.setNoDelay(true);
    opened.on("error", failOpen);
    opened.on("close", failOpen);
    onLines(opened, (message) => {
      if (message.t !== "g" || typeof message.id !== "number") return;
      const grant = pending.get(message.id);
      pending.delete(message.id);
      grant?.();
    });
    socket = opened;
    return opened;
  };

  return {
    acquire({ judgeName, priority, signal }) {
      const connection = open();
      if (connection === null) return Promise.resolve(() => {});
      if (signal?.aborted) return Promise.reject(signal.reason);
      const id = nextId++;
      const send = (message: object) => {
        if (!broken) connection.write(`${JSON.stringify(message)}\n`);
      };
      const releaseSlot = () => send({ t: "r", id });
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          pending.delete(id);
          releaseSlot();
          reject(signal?.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        pending.set(id, () => {
          signal?.removeEventListener("abort", onAbort);
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            releaseSlot();
          });
        });
        send({ t: "a", id, m: judgeName, p: priority });
      });
    },
  };
}

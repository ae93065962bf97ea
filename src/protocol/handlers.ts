/**
 * How each side finds the code for a message it receives: a map from every message type of one
 * direction (messages.ts) to its handler. Typed by the direction's union, a map that misses a
 * message type, or has a handler for a type the union does not have, fails typecheck.
 */
export type MessageHandlers<M extends { readonly type: string }, A extends unknown[] = [], R = void> = {
  readonly [K in M['type']]: (message: Extract<M, { readonly type: K }>, ...args: A) => R;
};

/** Calls the handler of `message.type`. */
export function dispatch<M extends { readonly type: string }, A extends unknown[], R>(handlers: MessageHandlers<M, A, R>, message: M, ...args: A): R {
  // The map gives each type the handler of that type's message; TypeScript cannot follow the pairing.
  const handler = handlers[message.type as M['type']] as (message: M, ...args: A) => R;
  return handler(message, ...args);
}

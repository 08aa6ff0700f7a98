/**
 * What an invoked actor's done / error event carries, read without restating the event types (xstate types `onDone`
 * and `onError` events loosely inside named actions). Used by the Compliance machines.
 */
export const outputOf = <T>(event: unknown): T => (event as { readonly output: T }).output
export const errorOf = (event: unknown): unknown => (event as { readonly error?: unknown }).error

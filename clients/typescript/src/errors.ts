import type { Decision } from "./types.js";

/**
 * Codes the client gives when no answer came back at all. The request may or may not have
 * been recorded: send it again with the same request_id (the service answers the recorded
 * decision) and treat it as blocked until then.
 */
export const TIMEOUT = "TIMEOUT";
export const NETWORK = "NETWORK";

/**
 * Any call that got no decision or no data: the service's error (`code`, `hint`, the
 * HTTP `status`) or TIMEOUT / NETWORK when no answer came. A block is not an error: it
 * is a Decision with outcome "block".
 */
export class HandoffError extends Error {
  override readonly name = "HandoffError";
  /** The service's error code (UNAUTHENTICATED, IDENTITY_MISMATCH, NO_DECISION, ...). */
  readonly code: string;
  /** What to do next, as the service says it. */
  readonly hint: string;
  /** The HTTP status, 0 when no answer came. */
  readonly status: number;
  /** The decision the service attached, when it made one (a refused identity, say). */
  readonly decision: Decision | undefined;
  /** How many times the call was sent. */
  readonly attempts: number;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    hint?: string | undefined;
    decision?: Decision | undefined;
    attempts: number;
    cause?: unknown;
  }) {
    super(`handoff: ${init.status ? init.status + " " : ""}${init.code}: ${init.message}`, { cause: init.cause });
    this.code = init.code;
    this.hint = init.hint ?? "";
    this.status = init.status;
    this.decision = init.decision;
    this.attempts = init.attempts;
  }

  /** Whether sending the same call again may succeed (no answer, or the store was away). */
  get retryable(): boolean {
    return this.status === 0 || this.status === 503;
  }
}

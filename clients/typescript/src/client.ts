import { HandoffError, NETWORK, TIMEOUT } from "./errors.js";
import type {
  AuditLog,
  Contract,
  Decision,
  Entry,
  Explanation,
  FilledTemplate,
  PackSchemas,
  PackSchemasAnswer,
  Principal,
  Request,
  RequestTemplate,
  ServiceError,
  State,
  Status,
  TemplateOptions,
  VerifyReport,
  Waiting,
  WorkflowList,
  WorkflowLog,
} from "./types.js";

export interface ClientOptions {
  /** The service's address, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** The bearer token of one principal: the service acts as its tenant, actor and roles. */
  token?: string;
  /** How long one attempt may take before it is abandoned. Default 30 000 ms. */
  timeoutMs?: number;
  /**
   * How many more times a call is sent when no answer came (network error, timeout) or
   * the service answered 503. Default 3. A submit is sent again with the same request_id,
   * so the service answers the decision it recorded: a retry never records twice.
   */
  retries?: number;
  /** The first pause between attempts, doubled each time. Default 200 ms. */
  retryDelayMs?: number;
  /** The fetch to use (Node's own by default). */
  fetch?: typeof globalThis.fetch;
}

/** Per call: a signal that abandons the call (no retry after it fires). */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Per call of next: the time every step is put to the policy at (default the service's now). */
export interface NextOptions extends CallOptions {
  /** An RFC 3339 time with a zone, or a Date. */
  at?: string | Date;
}

export interface WorkflowFilters {
  pack?: string;
  status?: string;
  /** "human": only workflows whose standing decision is await_human. */
  awaiting?: "human";
  /** "me": waiting for one of this token's roles (a person's token); "anyone"; "nobody". */
  waiting?: "me" | "anyone" | "nobody";
  /** Only workflows this agent produced an artifact for, or may act on now. */
  agent?: string;
  /** Only workflows whose latest decision gave this reason code. */
  reason?: string;
  /** Only workflows whose id or subject id holds this text, in any case. */
  q?: string;
  /** Latest decision at or after this RFC 3339 time. */
  since?: string;
  /** Latest decision before this RFC 3339 time. */
  until?: string;
  /** A page of at most this many (1-200), most recent activity first; `next` is the cursor of the page after. */
  limit?: number;
  /** The `next` of the page before, with the same filters. */
  cursor?: string;
}

/**
 * A client of the Handoff service (`handoffctl serve`). One client speaks for one token.
 * It is safe for concurrent use. Every method either resolves with the service's answer or
 * rejects with a HandoffError; a block is an answer (a Decision), not an error.
 */
export class HandoffClient {
  readonly baseUrl: string;
  readonly #token: string | undefined;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #retryDelayMs: number;
  readonly #fetch: typeof globalThis.fetch;

  constructor(options: ClientOptions) {
    const url = new URL(options.baseUrl); // throws on an address that is not one
    this.baseUrl = url.href.replace(/\/+$/, "");
    this.#token = options.token;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#retries = options.retries ?? 3;
    this.#retryDelayMs = options.retryDelayMs ?? 200;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /**
   * Submits a request: the engine decides and records. The same request_id always answers
   * the decision recorded for it, which is what makes the retries safe.
   */
  async submit(request: Request, options?: CallOptions): Promise<Decision> {
    requireRequestId(request);
    return this.#call<Decision>("POST", "/v1/requests", request, options);
  }

  /** Decides a request without recording it (a dry run). */
  async evaluate(request: Request, options?: CallOptions): Promise<Decision> {
    requireRequestId(request);
    return this.#call<Decision>("POST", "/v1/evaluate", request, options);
  }

  /** The principal of the client's token: the tenant and actor (type, id, roles) every
   * request it sends must name (IDENTITY_MISMATCH otherwise). */
  whoami(options?: CallOptions): Promise<Principal> {
    return this.#call<Principal>("GET", "/v1/whoami", undefined, options);
  }

  /** The recorded state of one workflow: status, version, artifacts. */
  state(tenant: string, workflow: string, options?: CallOptions): Promise<State> {
    return this.#call<State>("GET", `/v1/tenants/${seg(tenant)}/workflows/${seg(workflow)}`, undefined, options);
  }

  /** Every recorded entry of one workflow, oldest first. */
  log(tenant: string, workflow: string, options?: CallOptions): Promise<WorkflowLog> {
    return this.#call<WorkflowLog>("GET", `/v1/tenants/${seg(tenant)}/workflows/${seg(workflow)}/log`, undefined, options);
  }

  /**
   * What a workflow waits for: who may act, what each may send and which recorded
   * versions each must cite, and what the policy says of each step at `at`.
   */
  next(tenant: string, workflow: string, options?: NextOptions): Promise<Waiting> {
    const at = options?.at instanceof Date ? options.at.toISOString() : options?.at;
    const q = at === undefined ? "" : `?${new URLSearchParams({ at })}`;
    return this.#call<Waiting>("GET", `/v1/tenants/${seg(tenant)}/workflows/${seg(workflow)}/next${q}`, undefined, options);
  }

  /**
   * The tenant's workflows the filters select: all of them in id order, or with `limit` or
   * `cursor` one page, most recent activity first.
   */
  workflows(tenant: string, filters: WorkflowFilters = {}, options?: CallOptions): Promise<WorkflowList> {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(filters)) if (v !== undefined) query.set(k, String(v));
    const q = query.size ? `?${query}` : "";
    return this.#call<WorkflowList>("GET", `/v1/tenants/${seg(tenant)}/workflows${q}`, undefined, options);
  }

  /** The tenant's security audit stream (refused requests that reached no workflow). */
  audit(tenant: string, options?: CallOptions): Promise<AuditLog> {
    return this.#call<AuditLog>("GET", `/v1/tenants/${seg(tenant)}/audit`, undefined, options);
  }

  /** Verifies every hash chain of the tenant: ok, or which record broke it. */
  verify(tenant: string, options?: CallOptions): Promise<VerifyReport> {
    return this.#call<VerifyReport>("GET", `/v1/tenants/${seg(tenant)}/verify`, undefined, options);
  }

  /** The log entry of one recorded decision (its request and decision), by decision id. */
  entry(decisionId: string, options?: CallOptions): Promise<Entry> {
    return this.#call<Entry>("GET", `/v1/decisions/${seg(decisionId)}`, undefined, options);
  }

  /** Why a recorded decision was made: the policy re-run on the recorded input. */
  explain(decisionId: string, options?: CallOptions): Promise<Explanation> {
    return this.#call<Explanation>("GET", `/v1/decisions/${seg(decisionId)}/explain`, undefined, options);
  }

  /** One pack's contract tables: what each agent produces, each artifact's fields and gates. */
  contract(pack: string, options?: CallOptions): Promise<Contract> {
    return this.#call<Contract>("GET", `/v1/packs/${seg(pack)}/contract`, undefined, options);
  }

  /**
   * One pack's contract as JSON Schemas (2020-12): each request kind's and each artifact
   * type's content, with the limits, gates and configuration a valid request depends on.
   * The agents' record and review tools are typed with it (contractTools).
   */
  async schemas(pack: string, options?: CallOptions): Promise<PackSchemas> {
    return (await this.#call<PackSchemasAnswer>("GET", `/v1/packs/${seg(pack)}/schemas`, undefined, options)).schemas;
  }

  /**
   * The OpenAPI 3.1 document of the service for one pack: the bodies of submit and
   * evaluate are the pack's request kinds, a oneOf chosen by kind.
   */
  packOpenAPI(pack: string, options?: CallOptions): Promise<Record<string, unknown>> {
    return this.#call<Record<string, unknown>>("GET", `/v1/packs/${seg(pack)}/openapi.json`, undefined, options);
  }

  /**
   * The skeleton of a request of `kind` for `pack`, as `handoffctl template -o json`
   * writes it. An unknown pack or kind rejects with NOT_FOUND, an unknown agent with
   * BAD_REQUEST; the hint names the closest names.
   */
  template(pack: string, kind: string, templateOptions: TemplateOptions = {}, options?: CallOptions): Promise<RequestTemplate> {
    return this.#call<RequestTemplate>("GET", templatePath(pack, kind, templateOptions), undefined, options);
  }

  /**
   * The skeleton of `template` filled for a workflow of the token's own tenant: its tenant,
   * organization, id and trace, and every reference to a recorded version resolved;
   * `unresolved` lists the placeholders of versions not recorded yet, left as written.
   */
  fillTemplate(pack: string, kind: string, workflow: string, templateOptions: TemplateOptions = {}, options?: CallOptions): Promise<FilledTemplate> {
    return this.#call<FilledTemplate>("GET", templatePath(pack, kind, { ...templateOptions, workflow_id: workflow }), undefined, options);
  }

  /** Whether the process is up (no token needed). */
  health(options?: CallOptions): Promise<Status> {
    return this.#call<Status>("GET", "/health", undefined, options);
  }

  /** Whether the store could record a decision now (reachable, writable, this version's schema): rejects with a 503 HandoffError when not. */
  ready(options?: CallOptions): Promise<Status> {
    return this.#call<Status>("GET", "/health/ready", undefined, options);
  }

  async #call<T>(method: string, path: string, body: unknown, options: CallOptions | undefined): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.#token !== undefined) headers.authorization = `Bearer ${this.#token}`;
    // Serialized once: every attempt sends the same bytes, the same request_id.
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload !== undefined) headers["content-type"] = "application/json";
    const caller = options?.signal;
    let last: HandoffError | undefined;
    for (let attempt = 1; attempt <= this.#retries + 1; attempt++) {
      if (attempt > 1) await pause(this.#retryDelayMs * 2 ** (attempt - 2), caller);
      caller?.throwIfAborted();
      const signal = caller
        ? AbortSignal.any([caller, AbortSignal.timeout(this.#timeoutMs)])
        : AbortSignal.timeout(this.#timeoutMs);
      let response: Response;
      let text: string;
      try {
        response = await this.#fetch(this.baseUrl + path, { method, headers, body: payload, signal });
        text = await response.text();
      } catch (err) {
        if (caller?.aborted) throw caller.reason;
        const timedOut = err instanceof DOMException && err.name === "TimeoutError";
        last = new HandoffError({
          status: 0,
          code: timedOut ? TIMEOUT : NETWORK,
          message: timedOut ? `no answer within ${this.#timeoutMs} ms` : describe(err),
          hint: "the request may have been recorded: send it again with the same request_id",
          attempts: attempt,
          cause: err,
        });
        continue;
      }
      if (response.ok) return parse<T>(text, response.status, attempt);
      const e = errorOf(response.status, text, attempt);
      if (!e.retryable) throw e;
      last = e;
    }
    throw last!;
  }
}

function requireRequestId(request: Request): void {
  // Without a request_id a retry could not be told from a new request.
  if (typeof request?.request_id !== "string" || request.request_id === "") {
    throw new HandoffError({
      status: 0,
      code: "BAD_REQUEST",
      message: "the request has no request_id",
      hint: "give every request a request_id of its own, and reuse it only to send the same request again",
      attempts: 0,
    });
  }
}

function parse<T>(text: string, status: number, attempts: number): T {
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new HandoffError({ status, code: "INVALID_RESPONSE", message: "the answer is not JSON", attempts, cause: err });
  }
}

function errorOf(status: number, text: string, attempts: number): HandoffError {
  let body: Partial<ServiceError> = {};
  try {
    body = JSON.parse(text) as ServiceError;
  } catch {
    body = { code: `HTTP_${status}`, message: text.slice(0, 200) || `HTTP ${status}` };
  }
  return new HandoffError({
    status,
    code: body.code ?? `HTTP_${status}`,
    message: body.message ?? `HTTP ${status}`,
    hint: body.hint,
    decision: body.decision,
    attempts,
  });
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return `${cause.code}: ${cause.message ?? ""}`.trim();
  return err instanceof Error ? err.message : String(err);
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function seg(s: string): string {
  return encodeURIComponent(s);
}

/** The path of a template: its options as the query, those not given left out. */
function templatePath(pack: string, kind: string, query: TemplateOptions & { workflow_id?: string }): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") params.set(k, v);
  const q = params.size ? `?${params}` : "";
  return `/v1/packs/${seg(pack)}/templates/${seg(kind)}${q}`;
}

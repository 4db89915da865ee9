/**
 * The resource groups of the client: `abuseReports`, `eventSubscriptions`, `eventDestinations`.
 * Every method validates its input with `validation.ts` first (throwing `ValidationError` before
 * any request), then sends one operation through the transport (retries included).
 *
 * Reference: docs/service-api.md § Paging.
 *
 * @packageDocumentation
 */
import type { Idempotency } from "./idempotency";
import type { z } from "zod";
import { APIResponseValidationError, ValidationError, type ValidationIssue } from "./errors";
import { ID_PREFIX } from "service-contract";
import {
  AbuseReport,
  type AbuseReportCreate,
  EventDestination,
  type EventDestinationCreate,
  EventDestinationList,
  type EventDestinationUpdate,
  EventSubscription,
  type EventSubscriptionCreate,
  EventSubscriptionList,
  type EventSubscriptionUpdate,
} from "service-contract";
import type { CreateOptions, RequestOptions, Transport } from "./transport";
import * as validation from "./validation";

/** Parameters of `list` and `pages`. */
export interface ListParams {
  /** Page size, 1 to 100 (default 100 on the service). Passed through as `?limit=`. */
  limit?: number;
}

/** One page of a list: its items (newest first) and the absolute URI of the next page, `null` on the last. */
export interface Page<T> {
  items: T[];
  nextPageUri: string | null;
}

function assertValid(issues: ValidationIssue[]): void {
  if (issues.length > 0) throw new ValidationError(issues);
}

interface ResourceSpec<T extends z.ZodType> {
  /** Collection path, e.g. `/event_subscriptions`. */
  path: string;
  /** ID prefix of the resource, e.g. `esb_`. */
  prefix: string;
  /** Schema of one resource. */
  schema: T;
  validateCreate: (input: unknown) => ValidationIssue[];
}

interface CollectionSpec<T extends z.ZodType> extends ResourceSpec<T> {
  /** Schema of one page of the list, transformed into a {@link Page}. */
  pageSchema: z.ZodType<Page<z.infer<T>>>;
  validateUpdate: (input: unknown) => ValidationIssue[];
}

/** Methods shared by every resource: `create` and `get`. */
abstract class Resource<T extends z.ZodType, Create, S extends ResourceSpec<T> = ResourceSpec<T>> {
  // Private fields: the plumbing stays out of util.inspect / JSON.stringify of the client.
  readonly #transport: Transport;
  readonly #spec: S;
  readonly #idempotency: Idempotency;

  /** @internal Built by `ServiceClient`. */
  constructor(transport: Transport, spec: S, idempotency: Idempotency) {
    this.#transport = transport;
    this.#spec = spec;
    this.#idempotency = idempotency;
  }

  protected get transport(): Transport {
    return this.#transport;
  }

  protected get spec(): S {
    return this.#spec;
  }

  /**
   * Creates a resource (`POST`, answers 201).
   *
   * **Retries of a create:** a POST is retried only when the service provably did not run it —
   * a 429, a 503 carrying `Retry-After`, or a connection that could not be opened. After a
   * connection reset or a timeout in the middle of the request it is **not** retried (the first
   * POST may have created the resource; a second would duplicate it) and `APIConnectionError` /
   * `APIConnectionTimeoutError` is thrown: the resource may or may not exist. With an
   * idempotency key (`options.idempotencyKey`, or the client option `idempotencyKeys`) the POST
   * carries `Idempotency-Key` and is retried like a PATCH — with `idempotencyKeys: "auto"`, only
   * once the server has echoed a key (`ServiceClient.idempotency.honoured`).
   *
   * @throws ValidationError before any request when the input breaks a rule of the service.
   * @throws BadRequestError, AuthenticationError, PermissionDeniedError, RateLimitError (after
   *   retries), InternalServerError, APIConnectionError, APIResponseValidationError.
   */
  async create(input: Create, options?: CreateOptions): Promise<z.infer<T>> {
    assertValid(this.spec.validateCreate(input));
    const idempotencyKey = this.#idempotency.keyFor(options?.idempotencyKey);
    return this.transport.call({
      method: "POST",
      path: this.spec.path,
      body: this.createBody(input),
      schema: this.spec.schema,
      idempotencyKey,
      options,
    });
  }

  /** Request body of a create; subclasses fill defaults. */
  protected createBody(input: Create): unknown {
    return input;
  }

  /**
   * Reads one resource by ID (`GET`, answers 200). Retried on 429, 502/503/504 and connection
   * errors.
   * @throws ValidationError when `id` lacks the resource's prefix.
   * @throws NotFoundError when no such resource exists in the account.
   */
  async get(id: string, options?: RequestOptions): Promise<z.infer<T>> {
    return this.transport.call({ method: "GET", path: this.itemPath(id), schema: this.spec.schema, options });
  }

  /** Path of one resource, after checking the ID's prefix. */
  protected itemPath(id: string): string {
    assertValid(validation.validateId(id, this.spec.prefix));
    return `${this.spec.path}/${encodeURIComponent(id)}`;
  }
}

/** Resources with the full set of operations: create, get, list/pages, update, delete. */
abstract class Collection<T extends z.ZodType, Create, Update> extends Resource<
  T,
  Create,
  CollectionSpec<T>
> {
  /**
   * Every resource of the account, newest first, fetched page by page (following
   * `next_page_uri`) as the iteration proceeds.
   *
   * ```ts
   * for await (const sub of client.eventSubscriptions.list({ limit: 50 })) console.log(sub.id);
   * ```
   * @throws ValidationError at once (before any request) when `limit` is not an integer in 1..100.
   */
  list(params?: ListParams, options?: RequestOptions): AsyncIterable<z.infer<T>> {
    const pages = this.pages(params, options);
    return {
      async *[Symbol.asyncIterator]() {
        for await (const page of pages) yield* page.items;
      },
    };
  }

  /**
   * The pages of {@link list}: `{ items, nextPageUri }`, one request each, following
   * `next_page_uri` (its path and query are sent to the client's own base URL, never to another
   * origin). Stops with `APIResponseValidationError` if the service repeats a page URI.
   * @throws ValidationError at once when `limit` is not an integer in 1..100.
   */
  pages(params?: ListParams, options?: RequestOptions): AsyncIterable<Page<z.infer<T>>> {
    assertValid(validation.validateListParams(params));
    const first = params?.limit === undefined ? this.spec.path : `${this.spec.path}?limit=${params.limit}`;
    const { transport, spec } = this;
    return {
      async *[Symbol.asyncIterator]() {
        const seen = new Set<string>();
        for (let path: string | null = first; path !== null;) {
          seen.add(path);
          const page: Page<z.infer<T>> = await transport.call({
            method: "GET",
            path,
            schema: spec.pageSchema,
            options,
          });
          yield page;
          path = page.nextPageUri === null ? null : transport.relativePath(page.nextPageUri);
          if (path !== null && seen.has(path)) {
            throw new APIResponseValidationError(`GET ${path}: next_page_uri repeats a page already read`, {
              status: 200,
              body: page,
            });
          }
        }
      },
    };
  }

  /**
   * Partial update (`PATCH`, answers 200): a field left out keeps its value, a field sent
   * replaces the whole value (lists included), `""` clears a string. Retried like a GET.
   * @throws ValidationError before any request when the input breaks a rule of the service.
   * @throws NotFoundError when no such resource exists.
   */
  async update(id: string, input: Update, options?: RequestOptions): Promise<z.infer<T>> {
    const path = this.itemPath(id);
    assertValid(this.spec.validateUpdate(input));
    return this.transport.call({ method: "PATCH", path, body: input, schema: this.spec.schema, options });
  }

  /**
   * Deletes a resource (`DELETE`, answers 204). Retried on 429, 502/503/504 and connection
   * errors: when a first attempt reached the service but its answer was lost, the retry answers
   * 404 and this method throws `NotFoundError` — the resource is gone either way, and callers
   * that only want it gone may treat `NotFoundError` as success.
   * @throws NotFoundError when no such resource exists (see above).
   * @throws ConflictError for a destination still referenced by a subscription.
   */
  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.transport.call({ method: "DELETE", path: this.itemPath(id), schema: undefined, options });
  }
}

/**
 * `client.abuseReports`: create and get abuse reports (no list, update or delete).
 * Only accounts authorized for abuse reports may use it; others get `PermissionDeniedError`.
 * Reference: docs/service-api.md § Abuse reports.
 */
export class AbuseReports extends Resource<typeof AbuseReport, AbuseReportCreate> {
  /** @internal Built by `ServiceClient`. */
  constructor(transport: Transport, idempotency: Idempotency) {
    super(
      transport,
      {
        path: "/abuse_reports",
        prefix: ID_PREFIX.abuseReport,
        schema: AbuseReport,
        validateCreate: validation.validateAbuseReportCreate,
      },
      idempotency,
    );
  }
}

/**
 * `client.eventSubscriptions`: create, get, list, update and delete event subscriptions.
 * Reference: docs/service-api.md § Event subscriptions.
 */
export class EventSubscriptions extends Collection<
  typeof EventSubscription,
  EventSubscriptionCreate,
  EventSubscriptionUpdate
> {
  /** @internal Built by `ServiceClient`. */
  constructor(transport: Transport, idempotency: Idempotency) {
    super(
      transport,
      {
        path: "/event_subscriptions",
        prefix: ID_PREFIX.eventSubscription,
        schema: EventSubscription,
        validateCreate: validation.validateEventSubscriptionCreate,
        pageSchema: EventSubscriptionList.transform((l) => ({
          items: l.eventSubscriptions,
          nextPageUri: l.nextPageUri,
        })),
        validateUpdate: validation.validateEventSubscriptionUpdate,
      },
      idempotency,
    );
  }
}

/**
 * `client.eventDestinations`: create, get, list, update and delete event destinations. Secrets
 * in `target` are write-only: responses show them as `""`.
 * Reference: docs/service-api.md § Event destinations.
 */
export class EventDestinations extends Collection<
  typeof EventDestination,
  EventDestinationCreate,
  EventDestinationUpdate
> {
  /** @internal Built by `ServiceClient`. */
  constructor(transport: Transport, idempotency: Idempotency) {
    super(
      transport,
      {
        path: "/event_destinations",
        prefix: ID_PREFIX.eventDestination,
        schema: EventDestination,
        validateCreate: validation.validateEventDestinationCreate,
        pageSchema: EventDestinationList.transform((l) => ({
          items: l.eventDestinations,
          nextPageUri: l.nextPageUri,
        })),
        validateUpdate: validation.validateEventDestinationUpdate,
      },
      idempotency,
    );
  }

  /** Sends `format: "json"` when the input leaves it out. */
  protected override createBody(input: EventDestinationCreate): unknown {
    return { ...input, format: input.format ?? "json" };
  }
}

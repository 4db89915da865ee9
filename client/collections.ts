/**
 * The resource groups of the client: `abuseReports`, `eventSubscriptions`, `eventDestinations`.
 * Every method validates its input with `requestValidation.ts` first (throwing `ValidationError` before
 * any request), then sends one operation through the transport (retries included).
 *
 * Reference: docs/service-api.md § Paging.
 *
 * @packageDocumentation
 */
import type { Idempotency } from "./idempotency";
import type { z } from "zod";
import { APIResponseValidationError, ValidationError, type ValidationIssue } from "./errors";
import {
  type AbuseReport,
  type AbuseReportCreate,
  type EventDestination,
  type EventDestinationCreate,
  type EventDestinationUpdate,
  type EventSubscription,
  type EventSubscriptionCreate,
  type EventSubscriptionUpdate,
  type ResourceDescriptor,
  type ResourceSchemas,
} from "service-contract";
import type { CreateOptions, RequestOptions, Transport } from "./transport";
import * as validation from "./requestValidation";

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

/** `input` without its keys that hold `undefined`, so that a default is not overwritten by one. */
function stripUndefined(input: unknown): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(input as Record<string, unknown>).filter(([, v]) => v !== undefined),
  );
}

/** The descriptor of a resource whose responses have the schema `T`. */
type Described<T extends z.ZodObject> = ResourceDescriptor<ResourceSchemas<T>>;

/** Methods shared by every resource: `create` and `get`. */
abstract class Resource<T extends z.ZodObject, Create> {
  // Private fields: the plumbing stays out of util.inspect / JSON.stringify of the client.
  readonly #transport: Transport;
  readonly #spec: Described<T>;
  readonly #idempotency: Idempotency;

  /** @internal Built by `ServiceClient`, with the resource's descriptor from the contract. */
  constructor(transport: Transport, spec: Described<T>, idempotency: Idempotency) {
    this.#transport = transport;
    this.#spec = spec;
    this.#idempotency = idempotency;
  }

  protected get transport(): Transport {
    return this.#transport;
  }

  protected get spec(): Described<T> {
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
    assertValid(validation.validateBody(this.spec.schemas.create, input));
    const idempotencyKey = this.#idempotency.keyFor(options?.idempotencyKey);
    return this.transport.call({
      method: "POST",
      path: this.spec.path,
      body: { ...this.spec.createDefaults, ...stripUndefined(input) },
      schema: this.spec.schemas.response,
      idempotencyKey,
      options,
    });
  }

  /**
   * Reads one resource by ID (`GET`, answers 200). Retried on 429, 502/503/504 and connection
   * errors.
   * @throws ValidationError when `id` lacks the resource's prefix.
   * @throws NotFoundError when no such resource exists in the account.
   */
  async get(id: string, options?: RequestOptions): Promise<z.infer<T>> {
    return this.transport.call({
      method: "GET",
      path: this.itemPath(id),
      schema: this.spec.schemas.response,
      options,
    });
  }

  /** Path of one resource, after checking the ID's prefix. */
  protected itemPath(id: string): string {
    assertValid(validation.validateId(id, this.spec.idPrefix));
    return `${this.spec.path}/${encodeURIComponent(id)}`;
  }
}

/** Resources that are listed and deleted besides created and read: create, get, list/pages, delete. */
abstract class ListedResource<T extends z.ZodObject, Create> extends Resource<T, Create> {
  /** One page of the list as a {@link Page}, read from the descriptor's list schema and key. */
  readonly #pageSchema: z.ZodType<Page<z.infer<T>>>;

  /** @internal Built by `ServiceClient`, with the resource's descriptor from the contract. */
  constructor(transport: Transport, spec: Described<T>, idempotency: Idempotency) {
    super(transport, spec, idempotency);
    const { list } = spec.schemas;
    const key = spec.listKey;
    if (!list || key === undefined) throw new Error(`${spec.names.plural} have no list`);
    this.#pageSchema = list.transform((l) => ({
      items: (l as Record<string, unknown>)[key] as z.infer<T>[],
      nextPageUri: (l as { nextPageUri: string | null }).nextPageUri,
    }));
  }

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
    const { transport } = this;
    const pageSchema = this.#pageSchema;
    return {
      async *[Symbol.asyncIterator]() {
        const seen = new Set<string>();
        for (let path: string | null = first; path !== null;) {
          seen.add(path);
          const page: Page<z.infer<T>> = await transport.call({
            method: "GET",
            path,
            schema: pageSchema,
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

/** Resources with the full set of operations: create, get, list/pages, update, delete. */
abstract class Collection<T extends z.ZodObject, Create, Update> extends ListedResource<T, Create> {
  /**
   * Partial update (`PATCH`, answers 200): a field left out keeps its value, a field sent
   * replaces the whole value (lists included), `""` clears a string. Retried like a GET.
   * @throws ValidationError before any request when the input breaks a rule of the service.
   * @throws NotFoundError when no such resource exists.
   */
  async update(id: string, input: Update, options?: RequestOptions): Promise<z.infer<T>> {
    const path = this.itemPath(id);
    assertValid(validation.validateBody(this.spec.schemas.update ?? this.spec.schemas.create, input));
    return this.transport.call({
      method: "PATCH",
      path,
      body: input,
      schema: this.spec.schemas.response,
      options,
    });
  }
}

/**
 * `client.abuseReports`: create and get abuse reports (no list, update or delete).
 * Only accounts authorized for abuse reports may use it; others get `PermissionDeniedError`.
 * Reference: docs/service-api.md § Abuse reports.
 */
export class AbuseReports extends Resource<typeof AbuseReport, AbuseReportCreate> {}

/**
 * `client.eventSubscriptions`: create, get, list, update and delete event subscriptions.
 * Reference: docs/service-api.md § Event subscriptions.
 */
export class EventSubscriptions extends Collection<
  typeof EventSubscription,
  EventSubscriptionCreate,
  EventSubscriptionUpdate
> {}

/**
 * `client.eventDestinations`: create, get, list, update and delete event destinations. Secrets
 * in `target` are write-only: responses show them as `""`. A create without `format` sends the
 * contract's default (`"json"`).
 * Reference: docs/service-api.md § Event destinations.
 */
export class EventDestinations extends Collection<
  typeof EventDestination,
  EventDestinationCreate,
  EventDestinationUpdate
> {}

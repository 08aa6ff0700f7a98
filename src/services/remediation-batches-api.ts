/**
 * Typed calls of bulk remediation (issue 32 part 4, src/contracts/remediation-batches.ts) on the shared API client, and
 * the effects of the batch pages built from them (`remediationBatchesEffectsFrom(services)`, handed to
 * `<RemediationBatchesEffectsProvider>` by the composition root). Answers are decoded with the contract's schemas;
 * failures reject with the client's catalogue error (the server's message for 4xx).
 */
import {
  BatchActionResponse,
  BatchCreatedResponse,
  BatchItemsResponse,
  RemediationBatchesResponse,
  RemediationBatchResponse,
} from "../contracts/remediation-batches.ts"
import type { RemediationBatchesEffects } from "../machines/remediation-batches-effects.ts"
import { endpoint, pathWith, type Endpoint } from "./api-client.ts"
import type { AppServices } from "./app-services.ts"

export const REMEDIATION_BATCH_ENDPOINTS = {
  create: endpoint({ method: "POST", path: "/api/remediation-batches", response: BatchCreatedResponse }),
  list: endpoint({ method: "GET", path: "/api/remediation-batches", response: RemediationBatchesResponse }),
  get: endpoint({ method: "GET", path: "/api/remediation-batches/:id", response: RemediationBatchResponse }),
  items: endpoint({ method: "GET", path: "/api/remediation-batches/:id/items", response: BatchItemsResponse }),
  stop: endpoint({ method: "POST", path: "/api/remediation-batches/:id/stop", response: BatchActionResponse }),
  undo: endpoint({ method: "POST", path: "/api/remediation-batches/:id/undo", response: BatchActionResponse }),
} satisfies Record<string, Endpoint<unknown>>

const signalOpt = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal })
const at = <A>(e: Endpoint<A>, id: number): Endpoint<A> => ({ ...e, path: pathWith(e.path, { id }) })

export const remediationBatchesEffectsFrom = (services: Pick<AppServices, "client">): RemediationBatchesEffects => ({
  createBatch: async (payload, signal) => {
    const answer = await services.client.request(REMEDIATION_BATCH_ENDPOINTS.create, { body: payload, ...signalOpt(signal) })
    return { message: answer.message, batch: answer.data }
  },
  listBatches: (query, signal) => services.client.request(REMEDIATION_BATCH_ENDPOINTS.list, { query, ...signalOpt(signal) }),
  loadBatch: async ({ id, limit }, signal) => {
    const [batch, items] = await Promise.all([
      services.client.request(at(REMEDIATION_BATCH_ENDPOINTS.get, id), signalOpt(signal)),
      services.client.request(at(REMEDIATION_BATCH_ENDPOINTS.items, id), { query: { limit }, ...signalOpt(signal) }),
    ])
    return { batch: batch.data, items: items.data, nextCursor: items.next_cursor }
  },
  loadItems: async ({ id, cursor }, signal) => {
    const items = await services.client.request(at(REMEDIATION_BATCH_ENDPOINTS.items, id), { query: { cursor }, ...signalOpt(signal) })
    return { items: items.data, nextCursor: items.next_cursor }
  },
  stopBatch: async ({ id }, signal) => {
    const answer = await services.client.request(at(REMEDIATION_BATCH_ENDPOINTS.stop, id), { body: {}, ...signalOpt(signal) })
    return { message: answer.message, batch: answer.data }
  },
  undoBatch: async ({ id, force }, signal) => {
    const answer = await services.client.request(at(REMEDIATION_BATCH_ENDPOINTS.undo, id), { body: force ? { force: true } : {}, ...signalOpt(signal) })
    return { message: answer.message, batch: answer.data }
  },
})

/**
 * Reads the identity groups of the contract (src/contracts/api.ts) so the security tests are generated from it:
 * every endpoint with its method and path, whether it is workspace-scoped (declares WorkspaceAccessDenied), the
 * schemas of its params/query/payload, and every id-typed field (`id`, `*_id`, `user_to_delete`, found by walking
 * the schema AST, nested arrays included).
 */
import { Effect, Schema } from "effect"
import * as Arbitrary from "effect/Arbitrary"
import { Api } from "../../src/contracts/api.ts"
import { WorkspaceAccessDenied } from "../../src/contracts/errors.ts"

export const IDENTITY_GROUPS = ["auth", "workspaces", "team", "invitations", "profile"] as const

export interface IdField {
  readonly slot: "params" | "query" | "payload"
  /** Path inside the slot; "*" stands for any array element. */
  readonly path: ReadonlyArray<string>
}

export interface EndpointInfo {
  readonly key: string
  readonly group: string
  readonly name: string
  readonly method: string
  readonly path: string
  readonly workspaceScoped: boolean
  readonly params: unknown
  readonly query: unknown
  readonly payload: unknown
  readonly idFields: ReadonlyArray<IdField>
}

const ID_NAME = /^(id|[a-z_]+_id|user_to_delete)$/

type AstNode = {
  readonly _tag: string
  readonly propertySignatures?: ReadonlyArray<{ readonly name: PropertyKey; readonly type: AstNode }>
  readonly rest?: ReadonlyArray<AstNode>
  readonly elements?: ReadonlyArray<AstNode>
  readonly types?: ReadonlyArray<AstNode>
  readonly encoding?: ReadonlyArray<{ readonly to: AstNode }>
}

const walk = (node: AstNode | undefined, path: Array<string>, out: Array<Array<string>>): void => {
  if (node === undefined) return
  if (node._tag === "Objects") {
    for (const ps of node.propertySignatures ?? []) {
      const name = String(ps.name)
      if (ID_NAME.test(name) && (ps.type._tag === "Number" || ps.type._tag === "Union")) out.push([...path, name])
      else walk(ps.type, [...path, name], out)
    }
  } else if (node._tag === "Arrays") {
    for (const r of [...(node.rest ?? []), ...(node.elements ?? [])]) walk(r, [...path, "*"], out)
  } else if (node._tag === "Union") {
    for (const t of node.types ?? []) walk(t, path, out)
  }
}

const idsOf = (schema: { readonly ast: AstNode } | undefined, slot: IdField["slot"]): Array<IdField> => {
  const out: Array<Array<string>> = []
  walk(schema?.ast, [], out)
  return out.map((path) => ({ slot, path }))
}

const apiGroups = () => (Api as unknown as { groups: Record<string, { endpoints: Record<string, any> }> }).groups

/** Every group of the contract. */
export const allGroups = (): ReadonlyArray<string> => Object.keys(apiGroups())

export const identityEndpoints = (groupNames: ReadonlyArray<string> = IDENTITY_GROUPS): ReadonlyArray<EndpointInfo> => {
  const groups = apiGroups()
  const out: Array<EndpointInfo> = []
  for (const group of groupNames) {
    for (const [name, e] of Object.entries(groups[group]!.endpoints)) {
      const payloadSchema = [...(e.payload as Map<string, { schemas: ReadonlyArray<{ ast: AstNode }> }>).values()][0]?.schemas[0]
      const errors = [...(e.error as Set<{ schema: unknown }>)].map((s) => s.schema)
      out.push({
        key: `${group}.${name}`,
        group,
        name,
        method: e.method,
        path: e.path,
        workspaceScoped: errors.includes(WorkspaceAccessDenied),
        params: e.params,
        query: e.query,
        payload: payloadSchema,
        idFields: [...idsOf(e.params, "params"), ...idsOf(e.query, "query"), ...idsOf(payloadSchema, "payload")],
      })
    }
  }
  return out
}

/** Every endpoint of every group of the contract. */
export const contractEndpoints = (): ReadonlyArray<EndpointInfo> => identityEndpoints(allGroups())

/**
 * Every string-typed field of a schema (`credentials.secret_key`, `invitations.*.email`): walks structs, arrays and
 * unions of the schema's AST; literals and enumerations are left out (they are not free text).
 */
export const stringFields = (schema: unknown): ReadonlyArray<ReadonlyArray<string>> => {
  const out: Array<Array<string>> = []
  const seen = new Set<string>()
  const visit = (node: AstNode | undefined, path: Array<string>, depth: number): void => {
    if (node === undefined || depth > 8) return
    if (node._tag === "String") {
      const key = path.join(".")
      if (!seen.has(key)) {
        seen.add(key)
        out.push(path)
      }
    } else if (node._tag === "Objects") {
      for (const ps of node.propertySignatures ?? []) visit(ps.type, [...path, String(ps.name)], depth + 1)
    } else if (node._tag === "Arrays") {
      for (const r of [...(node.rest ?? []), ...(node.elements ?? [])]) visit(r, [...path, "*"], depth + 1)
    } else if (node._tag === "Union") {
      for (const t of node.types ?? []) visit(t, path, depth + 1)
    }
  }
  visit((schema as { readonly ast?: AstNode } | undefined)?.ast, [], 0)
  return out
}

/** `value` with the field at `path` set to `v` ("*" = an array holding one element), objects created on the way. */
export const setField = (value: unknown, path: ReadonlyArray<string>, v: unknown): unknown => {
  if (path.length === 0) return v
  const [head, ...rest] = path
  if (head === "*") {
    const first = Array.isArray(value) && value.length > 0 ? value[0] : undefined
    return [setField(first, rest, v)]
  }
  const base = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
  return { ...base, [head!]: setField(base[head!], rest, v) }
}

/** Names of the `:name` segments of a contract path. */
export const pathParams = (path: string): ReadonlyArray<string> => [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!)

/** Fills `:name` segments of a contract path. */
export const fillPath = (path: string, params: Record<string, string | number>): string =>
  path.replace(/:([A-Za-z_]+)/g, (_m, k: string) => encodeURIComponent(String(params[k] ?? "")))

/**
 * A wire-encoded sample of a contract schema (effect/Arbitrary, seeded), or `{}` when none can be drawn; a struct whose
 * cross-field rule fails sampling is sampled field by field.
 */
export const sampleWire = (schema: unknown, seed: number): unknown => {
  if (schema === undefined) return undefined
  const draw = (s: Schema.Codec<unknown, unknown>) =>
    Effect.runSync(Arbitrary.sampleEffect(Arbitrary.schema(s as never), { count: 1, seed }).pipe(Effect.option))
  let s = schema as Schema.Codec<unknown, unknown>
  let values = draw(s)
  if (values._tag === "None" && "fields" in (schema as object)) {
    s = Schema.Struct((schema as { fields: Schema.Struct.Fields }).fields) as unknown as Schema.Codec<unknown, unknown>
    values = draw(s)
  }
  if (values._tag === "None" || values.value.length === 0) return {}
  try {
    return Schema.encodeUnknownSync(s)(values.value[0])
  } catch {
    return values.value[0]
  }
}

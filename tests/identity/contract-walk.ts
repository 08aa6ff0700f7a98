/**
 * Reads the identity groups of the contract (src/contracts/api.ts) so the security tests are generated from it:
 * every endpoint with its method and path, whether it is workspace-scoped (declares WorkspaceAccessDenied), the
 * schemas of its params/query/payload, and every id-typed field (`id`, `*_id`, `user_to_delete`, found by walking
 * the schema AST, nested arrays included).
 */
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

export const identityEndpoints = (): ReadonlyArray<EndpointInfo> => {
  const groups = (Api as unknown as { groups: Record<string, { endpoints: Record<string, any> }> }).groups
  const out: Array<EndpointInfo> = []
  for (const group of IDENTITY_GROUPS) {
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

/** Fills `:name` segments of a contract path. */
export const fillPath = (path: string, params: Record<string, string | number>): string =>
  path.replace(/:([A-Za-z_]+)/g, (_m, k: string) => encodeURIComponent(String(params[k] ?? "")))

/**
 * Compile-time check of the Azure decoders against the providers' own models (issue 29): every field a decoder in
 * server/scanner/azure/collectors reads must exist in the official `@azure/arm-*` TypeScript model (or, for
 * Microsoft Graph, `@microsoft/microsoft-graph-types`) with a compatible type, so a misspelt, missing or mistyped
 * field fails `tsc`. "Compatible" means every value the model allows is accepted by the decoder (the model's type is
 * assignable to the decoder's), so a decoder also accepts every documented enum value (the SDKs type extensible
 * enums as `string` with a `KnownXxx` list; a decoder narrowing such a field to literals fails here).
 *
 * The SDK models are client-shaped: `properties.*` is flattened into the resource and some wire names are renamed
 * (`x-ms-client-name`). `Conforms` flattens `properties` when the model has no `properties` member, and each model's
 * renames are listed as `wire path → SDK name`; tests/scanner-azure/official-models.test.ts confirms every rename of
 * the TypeSpec-generated packages against the package's own deserializer (wire JSON in, model out), so the table
 * cannot hide a misspelling. Date-time fields are `Date` in the SDK and ISO strings (or, for Key Vault attributes, Unix seconds) on the wire.
 *
 * A field the installed SDK version does not model yet (its API version is newer than the package) is listed in
 * `NotInSdk` with the REST specification it comes from; nothing else may be missing.
 */
import type * as Aks from "@azure/arm-containerservice"
import type * as Acr from "@azure/arm-containerregistry"
import type * as Recovery from "@azure/arm-recoveryservices"
import type * as AppService from "@azure/arm-appservice"
import type * as Authorization from "@azure/arm-authorization"
import type * as Compute from "@azure/arm-compute"
import type * as Cosmos from "@azure/arm-cosmosdb"
import type * as Databricks from "@azure/arm-databricks"
import type * as KeyVault from "@azure/arm-keyvault"
import type * as Monitor from "@azure/arm-monitor"
import type * as MySql from "@azure/arm-mysql-flexible"
import type * as Network from "@azure/arm-network"
import type * as Postgres from "@azure/arm-postgresql-flexible"
import type * as Security from "@azure/arm-security"
import type * as Sql from "@azure/arm-sql"
import type * as Storage from "@azure/arm-storage"
import type * as Graph from "@microsoft/microsoft-graph-types"
import type * as aks from "../../server/scanner/azure/collectors/aks.ts"
import type * as acr from "../../server/scanner/azure/collectors/acr.ts"
import type * as recovery from "../../server/scanner/azure/collectors/recovery.ts"
import type * as appservice from "../../server/scanner/azure/collectors/appservice.ts"
import type * as compute from "../../server/scanner/azure/collectors/compute.ts"
import type * as databases from "../../server/scanner/azure/collectors/databases.ts"
import type * as databricks from "../../server/scanner/azure/collectors/databricks.ts"
import type * as defender from "../../server/scanner/azure/collectors/defender.ts"
import type * as identity from "../../server/scanner/azure/collectors/identity.ts"
import type * as keyvault from "../../server/scanner/azure/collectors/keyvault.ts"
import type * as monitor from "../../server/scanner/azure/collectors/monitor.ts"
import type * as network from "../../server/scanner/azure/collectors/network.ts"
import type * as storage from "../../server/scanner/azure/collectors/storage.ts"
import type { fixerReads } from "../../server/remediation/azure/fixers.ts"

/**
 * The ARM envelope every decoder shares (context.ts ArmResource). Its generic members (kind, sku, identity, tags)
 * are not compared resource by resource (a flattened SDK model can reuse the name: App Service's `sku` is its
 * `properties.sku` string); the envelope members a check reads are compared explicitly below (`envelope.*`).
 */
type Envelope = "kind" | "sku" | "identity" | "tags"

type Plain<T> = NonNullable<T>
type IsAny<T> = 0 extends 1 & T ? true : false

/** A leaf: the model's value type must be assignable to the decoder's (Date ↔ ISO string). */
type LeafOk<D, M> = IsAny<M> extends true ? true : unknown extends D ? true : [Plain<M>] extends [Date] ? (string extends Plain<D> ? true : number extends Plain<D> ? true : false) : [Plain<M>] extends [Plain<D>] ? true : false

/** Paths of `D` (the decoder's wire type) that do not conform to `M` (the SDK model); `never` when all do. */
export type Mismatches<D, M, R, P extends string = ""> = {
  [K in keyof D & string]-?: P extends "" ? (K extends Envelope ? never : Member<D, M, R, P, K>) : Member<D, M, R, P, K>
}[keyof D & string]

/** The SDK names that wire names at path P are renamed to (a decoder must read the wire name, not these). */
type RenameTargets<R, P extends string> = { [W in keyof R & string]: W extends `${P}${infer Leaf}` ? (Leaf extends `${string}.${string}` | `${string}[${string}` ? never : R[W]) : never }[keyof R & string]

type Member<D, M, R, P extends string, K extends keyof D & string> = K extends RenameTargets<R, P>
  ? `${P}${K} (the SDK's name: the wire name differs)`
  : K extends "properties"
    ? "properties" extends keyof Plain<M>
      ? Value<Plain<D[K]>, Plain<M>["properties" & keyof Plain<M>], R, `${P}properties`>
      : Mismatches<Plain<D[K]>, M, R, `${P}properties.`>
    : `${P}${K}` extends keyof R
      ? R[`${P}${K}`] extends keyof Plain<M>
        ? Value<Plain<D[K]>, Plain<M>[R[`${P}${K}`] & keyof Plain<M>], R, `${P}${K}`>
        : `${P}${K} (renamed ${R[`${P}${K}`] & string}: not in the model)`
      : K extends keyof Plain<M>
        ? Value<Plain<D[K]>, Plain<M>[K], R, `${P}${K}`>
        : `${P}${K} (not in the model)`

type Value<D, M, R, P extends string> =
  IsAny<M> extends true
    ? never
    : unknown extends D
      ? never
      : [D] extends [ReadonlyArray<infer DE>]
        ? [Plain<M>] extends [ReadonlyArray<infer ME>]
          ? Value<Plain<DE>, ME, R, `${P}[]`>
          : `${P} (an array in the decoder, not in the model)`
        : [D] extends [object]
          ? string extends keyof D
            ? [Plain<M>] extends [Record<string, infer MV>]
              ? Value<Plain<D[string & keyof D]>, MV, R, `${P}{}`>
              : `${P} (a map in the decoder, not in the model)`
            : [Plain<M>] extends [Date]
              ? `${P} (an object in the decoder, a date-time in the model)`
              : [Plain<M>] extends [object]
                ? Mismatches<D, Plain<M>, R, `${P}.`>
                : `${P} (an object in the decoder, a value in the model)`
          : LeafOk<D, M> extends true
            ? never
            : `${P} (type differs from the model)`

/** Compiles only when T is never: the compiler's message lists the paths that do not conform. */
export type Conforms<T extends never> = T

type T<S extends { readonly Type: unknown }> = S["Type"]

/** Wire name → SDK name, per model (x-ms-client-name renames; confirmed by official-models.test.ts). */
export const renames = {
  storageAccount: {
    "properties.supportsHttpsTrafficOnly": "enableHttpsTrafficOnly",
    "properties.networkAcls": "networkRuleSet",
    "properties.networkAcls.ipRules[].value": "iPAddressOrRange",
    "properties.networkAcls.virtualNetworkRules[].id": "virtualNetworkResourceId",
  },
  registry: { "properties.networkRuleSet.ipRules[].value": "iPAddressOrRange" },
  vaultKey: { "properties.attributes.exp": "expires", "properties.attributes.nbf": "notBefore" },
  vaultSecret: { "properties.attributes.exp": "expires", "properties.attributes.nbf": "notBefore" },
  managedCluster: { "properties.enableRBAC": "enableRbac", "properties.aadProfile.enableAzureRBAC": "enableAzureRbac" },
  workspace: { "properties.parameters.encryption.value.KeyName": "keyName", "properties.parameters.encryption.value.keyvaulturi": "keyVaultUri" },
} as const

/**
 * @azure/arm-security 5.0.0 (the newest stable package) models pricings at api-version 2018-06-01 and security
 * contacts at 2020-01-01-preview; the collector reads 2024-01-01 and 2023-12-01-preview. The newer members are
 * written out here from the REST specifications (azure-rest-api-specs specification/security/resource-manager/
 * Microsoft.Security/stable/2024-01-01/pricings.json, preview/2023-12-01-preview/securityContacts.json).
 */
interface PricingRest extends Security.Pricing {
  readonly deprecated?: boolean
  readonly replacedBy?: string[]
  readonly enforce?: "False" | "True" | (string & {})
  readonly extensions?: ReadonlyArray<{ readonly name: string; readonly isEnabled: "True" | "False" | (string & {}); readonly additionalExtensionProperties?: Record<string, unknown> }>
}
interface SecurityContactRest extends Security.Resource {
  readonly emails?: string
  readonly phone?: string
  readonly isEnabled?: boolean
  readonly notificationsSources?: ReadonlyArray<{ readonly sourceType: "Alert" | "AttackPath" | (string & {}); readonly minimalSeverity?: "High" | "Medium" | "Low" | (string & {}); readonly minimalRiskLevel?: "Critical" | "High" | "Medium" | "Low" | (string & {}) }>
  readonly notificationsByRole?: { readonly state?: "On" | "Off" | (string & {}); readonly roles?: ReadonlyArray<"AccountAdmin" | "ServiceAdmin" | "Owner" | "Contributor" | (string & {})> }
}

export type Checked = [
  Conforms<Mismatches<T<typeof storage.StorageAccount>, Storage.StorageAccount, typeof renames.storageAccount>>,
  Conforms<Mismatches<T<typeof storage.BlobService>, Storage.BlobServiceProperties, {}>>,
  Conforms<Mismatches<T<typeof storage.FileService>, Storage.FileServiceProperties, {}>>,
  Conforms<Mismatches<T<typeof keyvault.DiagnosticSetting>, Monitor.DiagnosticSettingsResource, {}>>,
  Conforms<Mismatches<T<typeof keyvault.Vault>, KeyVault.Vault, {}>>,
  Conforms<Mismatches<T<typeof keyvault.VaultKey>, KeyVault.Key, typeof renames.vaultKey>>,
  Conforms<Mismatches<T<typeof keyvault.VaultSecret>, KeyVault.Secret, typeof renames.vaultSecret>>,
  Conforms<Mismatches<T<typeof databases.SqlServer>, Sql.Server, {}>>,
  Conforms<Mismatches<T<typeof databases.Auditing>, Sql.ServerBlobAuditingPolicy, {}>>,
  Conforms<Mismatches<T<typeof databases.FirewallRule>, Sql.FirewallRule, {}>>,
  Conforms<Mismatches<T<typeof databases.FirewallRule>, Postgres.FirewallRule, {}>>,
  Conforms<Mismatches<T<typeof databases.FirewallRule>, MySql.FirewallRule, {}>>,
  Conforms<Mismatches<T<typeof databases.Protector>, Sql.EncryptionProtector, {}>>,
  Conforms<Mismatches<T<typeof databases.Administrator>, Sql.ServerAzureADAdministrator, {}>>,
  Conforms<Mismatches<T<typeof databases.Database>, Sql.Database, {}>>,
  Conforms<Mismatches<T<typeof databases.Tde>, Sql.LogicalDatabaseTransparentDataEncryption, {}>>,
  Conforms<Mismatches<T<typeof databases.FlexibleServer>, Postgres.Server, {}>>,
  Conforms<Mismatches<T<typeof databases.FlexibleServer>, MySql.Server, {}>>,
  Conforms<Mismatches<T<typeof databases.Configuration>, Postgres.Configuration, {}>>,
  Conforms<Mismatches<T<typeof databases.Configuration>, MySql.Configuration, {}>>,
  Conforms<Mismatches<T<typeof databases.CosmosAccount>, Cosmos.DatabaseAccountGetResults, {}>>,
  Conforms<Mismatches<T<typeof monitor.ActivityLogAlert>, Monitor.ActivityLogAlertResource, {}>>,
  Conforms<Mismatches<T<typeof network.NetworkSecurityGroup>, Network.NetworkSecurityGroup, {}>>,
  Conforms<Mismatches<T<typeof network.NetworkWatcher>, Network.NetworkWatcher, {}>>,
  Conforms<Mismatches<T<typeof network.FlowLog>, Network.FlowLog, {}>>,
  Conforms<Mismatches<T<typeof network.Named>, Network.VirtualNetwork, {}>>,
  Conforms<Mismatches<T<typeof network.Named>, Network.BastionHost, {}>>,
  Conforms<Mismatches<T<typeof identity.AuthorizationPolicy>, Graph.AuthorizationPolicy, {}>>,
  Conforms<Mismatches<T<typeof identity.SecurityDefaults>, Graph.IdentitySecurityDefaultsEnforcementPolicy, {}>>,
  Conforms<Mismatches<T<typeof identity.ConditionalAccessPolicy>, Graph.ConditionalAccessPolicy, {}>>,
  // ipRanges holds IPv4CidrRange / IPv6CidrRange items (both with cidrAddress; the base IpRange type has none).
  Conforms<Mismatches<Omit<T<typeof identity.NamedLocation>, "@odata.type">, Omit<Graph.IpNamedLocation, "ipRanges"> & { ipRanges?: Array<Graph.IPv4CidrRange | Graph.IPv6CidrRange> }, {}>>,
  Conforms<Mismatches<T<typeof identity.DeviceRegistrationPolicy>, Graph.DeviceRegistrationPolicy, {}>>,
  Conforms<Mismatches<T<typeof identity.GroupSetting>, Graph.GroupSetting, {}>>,
  Conforms<Mismatches<Omit<T<typeof identity.DirectoryMember>, "@odata.type">, Graph.User, {}>>,
  Conforms<Mismatches<T<typeof identity.RoleDefinition>, Authorization.RoleDefinition, {}>>,
  Conforms<Mismatches<T<typeof identity.RoleAssignment>, Authorization.RoleAssignment, {}>>,
  Conforms<Mismatches<T<typeof defender.Pricing>, PricingRest, {}>>,
  Conforms<Mismatches<T<typeof defender.AutoProvisioning>, Security.AutoProvisioningSetting, {}>>,
  Conforms<Mismatches<T<typeof defender.SecuritySetting>, Security.DataExportSettings, {}>>,
  Conforms<Mismatches<T<typeof defender.SecurityContact>, SecurityContactRest, {}>>,
  Conforms<Mismatches<T<typeof defender.Assessment>, Omit<Security.SecurityAssessmentResponse, "resourceDetails"> & { resourceDetails?: Security.AzureResourceDetails }, {}>>,
  // The envelope members checks read: storage sku.name and kind, App Service kind and identity.type, Databricks sku.name.
  Conforms<Mismatches<Pick<T<typeof storage.StorageAccount>, "sku" | "kind">, Storage.StorageAccount, {}, "envelope.">>,
  Conforms<Mismatches<Pick<T<typeof appservice.Site>, "kind" | "identity">, AppService.Site, {}, "envelope.">>,
  Conforms<Mismatches<Pick<T<typeof databricks.Workspace>, "sku">, Databricks.Workspace, {}, "envelope.">>,
  Conforms<Mismatches<T<typeof appservice.Site>, AppService.Site, {}>>,
  Conforms<Mismatches<T<typeof appservice.SiteConfig>, AppService.SiteConfigResource, {}>>,
  Conforms<Mismatches<T<typeof appservice.SiteAuthSettings>, AppService.SiteAuthSettingsV2, {}>>,
  Conforms<Mismatches<T<typeof aks.ManagedCluster>, Aks.ManagedCluster, typeof renames.managedCluster>>,
  Conforms<Mismatches<T<typeof compute.VirtualMachine>, Compute.VirtualMachine, {}>>,
  Conforms<Mismatches<T<typeof compute.ManagedDisk>, Compute.Disk, {}>>,
  Conforms<Mismatches<T<typeof databricks.Workspace>, Databricks.Workspace, typeof renames.workspace>>,
  Conforms<Mismatches<T<typeof acr.Registry>, Acr.Registry, typeof renames.registry>>,
  Conforms<Mismatches<T<typeof recovery.RecoveryVault>, Recovery.Vault, {}>>,
  // The remediation fixers' reads (server/remediation/azure/fixers.ts): their pre-images are official fields too.
  Conforms<Mismatches<T<typeof fixerReads.Tde>, Sql.LogicalDatabaseTransparentDataEncryption, {}>>,
  Conforms<Mismatches<T<typeof fixerReads.Configuration>, Postgres.Configuration, {}>>,
  Conforms<Mismatches<T<typeof fixerReads.Configuration>, MySql.Configuration, {}>>,
  Conforms<Mismatches<NonNullable<T<typeof fixerReads.Identity>["identity"]>, AppService.ManagedServiceIdentity, {}>>,
]

/** The check itself is checked: each of these decoder mistakes must fail to compile. */
type Wire<P> = { readonly id: string; readonly name: string; readonly properties?: P }
export type MustFail = [
  // @ts-expect-error a misspelt field
  Conforms<Mismatches<Wire<{ readonly allowBlobPublicAcess?: boolean }>, Storage.StorageAccount, {}>>,
  // @ts-expect-error a mistyped field
  Conforms<Mismatches<Wire<{ readonly allowBlobPublicAccess?: string }>, Storage.StorageAccount, {}>>,
  // @ts-expect-error an extensible enum narrowed to some of its documented values (KnownMinimumTlsVersion has four)
  Conforms<Mismatches<Wire<{ readonly minimumTlsVersion?: "TLS1_2" | "TLS1_3" }>, Storage.StorageAccount, {}>>,
  // @ts-expect-error a renamed field read under its SDK name (the wire name is supportsHttpsTrafficOnly)
  Conforms<Mismatches<Wire<{ readonly enableHttpsTrafficOnly?: boolean }>, Storage.StorageAccount, typeof renames.storageAccount>>,
  // @ts-expect-error a nested field that does not exist
  Conforms<Mismatches<Wire<{ readonly encryption?: { readonly keySrc?: string } }>, Storage.StorageAccount, {}>>,
  // @ts-expect-error an array read as a single value
  Conforms<Mismatches<Wire<{ readonly privateEndpointConnections?: { readonly id?: string } }>, Storage.StorageAccount, {}>>,
]

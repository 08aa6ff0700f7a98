/**
 * Sample answers of the Account groups page (issue 31 item 5), decoded with the contract's schema so a fake cannot
 * drift from what the server sends: groups of each kind, and the units and accounts the form offers.
 */
import { Schema } from "effect"
import { AccountGroup } from "../../src/contracts/account-groups.ts"
import type { AccountId } from "../../src/contracts/ids.ts"
import type { AccountGroupChoices, AccountGroupsLoaded } from "../../src/machines/account-groups-effects.ts"

const decodeGroup = Schema.decodeUnknownSync(AccountGroup as unknown as Schema.Decoder<AccountGroup>)

export const ORG = 7 as AccountId

export const accountGroup = (id: number, name: string, overrides: Record<string, unknown> = {}): AccountGroup =>
  decodeGroup({
    id,
    name,
    kind: "unit",
    organization_id: ORG,
    unit_id: "ou-prod",
    unit_path: "Root / Prod",
    tag_key: null,
    tag_value: null,
    account_ids: [],
    matched_account_ids: [21, 22],
    role_ids: [],
    created_at: "2026-11-20T10:00:00.000Z",
    updated_at: "2026-11-20T10:00:00.000Z",
    ...overrides,
  })

export const prodGroup = () => accountGroup(1, "Prod", { role_ids: [9] })
export const tagGroup = () =>
  accountGroup(2, "Payments team", { kind: "tag", organization_id: null, unit_id: null, unit_path: null, tag_key: "team", tag_value: "payments", matched_account_ids: [23] })
export const manualGroup = () =>
  accountGroup(3, "Audit sample", { kind: "manual", organization_id: null, unit_id: null, unit_path: null, account_ids: [21, 24], matched_account_ids: [21, 24] })

export const choices = (): AccountGroupChoices => ({
  units: [
    { organizationId: ORG, organizationName: "Acme", unitId: "r-root", path: "Root" },
    { organizationId: ORG, organizationName: "Acme", unitId: "ou-prod", path: "Root / Prod" },
    { organizationId: ORG, organizationName: "Acme", unitId: "ou-dev", path: "Root / Dev" },
  ],
  accounts: [
    { id: 21 as AccountId, name: "Web prod", cloudId: "111111111111", provider: "aws" },
    { id: 22 as AccountId, name: "API prod", cloudId: "222222222222", provider: "aws" },
    { id: 23 as AccountId, name: "Payments", cloudId: "333333333333", provider: "aws" },
    { id: 24 as AccountId, name: "Data lake", cloudId: "data-lake", provider: "gcp" },
  ],
})

export const loaded = (groups = [prodGroup(), tagGroup(), manualGroup()]): AccountGroupsLoaded => ({ groups, choices: choices() })

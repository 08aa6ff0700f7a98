/**
 * Sample answers of the Storage page (issue 30), decoded with the contract's schema so a fake cannot drift from what
 * the server sends: one account's figures, a workspace of any number of accounts, and the answer after a save.
 */
import { Schema } from "effect"
import { WorkspaceStorage, type AccountStorage, type RetentionSetting, type StorageFigures } from "../../src/contracts/storage.ts"

const decodeStorage = Schema.decodeUnknownSync(WorkspaceStorage as unknown as Schema.Decoder<WorkspaceStorage>)

export const figures = (scans: number, bytes: number): StorageFigures => ({ scans, results: scans * 120, rows: scans * 40, bytes })
const none: StorageFigures = { scans: 0, results: 0, rows: 0, bytes: 0 }

export const accountStorage = (id: number, name: string, scans: number, bytes: number, freesScans = 0): AccountStorage =>
  ({
    account_id: id,
    account_name: name,
    provider: "aws",
    used: figures(scans, bytes),
    frees: freesScans === 0 ? none : figures(freesScans, Math.round((bytes * freesScans) / Math.max(scans, 1))),
  }) as AccountStorage

const sum = (xs: ReadonlyArray<StorageFigures>): StorageFigures => ({
  scans: xs.reduce((n, x) => n + x.scans, 0),
  results: xs.reduce((n, x) => n + x.results, 0),
  rows: xs.reduce((n, x) => n + x.rows, 0),
  bytes: xs.reduce((n, x) => n + x.bytes, 0),
})

export const workspaceStorage = (
  accounts: ReadonlyArray<AccountStorage> = [accountStorage(1, "Production", 12, 4_200_000, 3), accountStorage(2, "Staging", 4, 9_800_000)],
  retention: RetentionSetting = { keep_days: 90, keep_scans: null },
): WorkspaceStorage =>
  decodeStorage({
    used: sum(accounts.map((a) => a.used)),
    frees: sum(accounts.map((a) => a.frees)),
    accounts,
    retention,
    retention_updated_at: retention.keep_days === null && retention.keep_scans === null ? null : "2025-03-01T10:00:00.000Z",
    retention_updated_by: retention.keep_days === null && retention.keep_scans === null ? null : "ada@example.com",
    retention_applied_at: "2025-03-02T03:00:00.000Z",
  })

/** A workspace of `n` accounts with figures in no particular order. */
export const manyAccounts = (n: number): ReadonlyArray<AccountStorage> =>
  Array.from({ length: n }, (_, i) => accountStorage(i + 1, `Account ${String(i + 1).padStart(4, "0")}`, (i * 7) % 23, ((i * 7919) % 10_007) * 1000))

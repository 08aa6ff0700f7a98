/**
 * moto as an AWS Organization for the organisation tests (tests/organizations/aws-*.test.ts): SDK clients of the
 * test's moto server, credentials inside a member account (moto answers AssumeRole into any role ARN, so a member is
 * entered through a "setup" role that need not exist), and member roles created inside a member.
 */
import { CreateRoleCommand, IAMClient } from "@aws-sdk/client-iam"
import { AssumeRoleCommand, STSClient } from "@aws-sdk/client-sts"
import { MOTO_KEYS } from "../support/moto.ts"

const REGION = "us-east-1"
const MOTO_CREDENTIALS = { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key }

/** The helpers for the moto server at `endpoint()` (read when called: the server starts in the test's beforeAll). */
export const awsOrgWorld = (endpoint: () => string) => {
  /** A client of moto, as the management account (moto's own keys) unless other credentials are given. */
  const client = <C>(make: new (config: any) => C, creds: object = MOTO_CREDENTIALS): C =>
    new make({ region: REGION, endpoint: endpoint(), credentials: creds, forcePathStyle: true, maxAttempts: 1 })

  /** Session credentials inside a member account. */
  const inMember = async (accountId: string) => {
    const out = await client(STSClient).send(new AssumeRoleCommand({ RoleArn: `arn:aws:iam::${accountId}:role/setup`, RoleSessionName: "setup" }))
    return { accessKeyId: out.Credentials!.AccessKeyId!, secretAccessKey: out.Credentials!.SecretAccessKey!, sessionToken: out.Credentials!.SessionToken! }
  }

  /** Creates these roles inside the member account (an empty trust policy: moto does not check it). */
  const giveRoles = async (accountId: string, roles: ReadonlyArray<string>) => {
    const iam = client(IAMClient, await inMember(accountId))
    for (const role of roles) {
      await iam.send(new CreateRoleCommand({ RoleName: role, AssumeRolePolicyDocument: JSON.stringify({ Version: "2012-10-17", Statement: [] }) }))
    }
  }

  return { client, inMember, giveRoles }
}

/**
 * The moto_server account of the scanning journeys (started by moto-setup.ts): the keys the product is given for it and
 * SDK clients a journey uses to plant and remove resources in it.
 */
import { AuthorizeSecurityGroupIngressCommand, CreateSecurityGroupCommand, DeleteSecurityGroupCommand, EC2Client } from "@aws-sdk/client-ec2"
import { DeleteBucketCommand, S3Client } from "@aws-sdk/client-s3"
import { inject } from "vitest"
import { MOTO_KEYS } from "../../tests/support/moto.ts"

export { MOTO_KEYS }

/** EC2 and S3 clients on the moto account, in us-east-1 (S3 path-style, as moto serves it). */
export const motoClients = () => {
  const config = {
    endpoint: inject("motoEndpoint"),
    region: "us-east-1",
    credentials: { accessKeyId: MOTO_KEYS.access_key, secretAccessKey: MOTO_KEYS.secret_key },
  }
  return { ec2: new EC2Client(config), s3: new S3Client({ ...config, forcePathStyle: true }) }
}

/** Plants a security group that opens SSH (tcp/22) to the whole internet; answers its id. */
export const openSshGroup = async (name: string, description: string): Promise<string> => {
  const { ec2 } = motoClients()
  const groupId = (await ec2.send(new CreateSecurityGroupCommand({ GroupName: name, Description: description }))).GroupId!
  await ec2.send(new AuthorizeSecurityGroupIngressCommand({
    GroupId: groupId, IpPermissions: [{ IpProtocol: "tcp", FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: "0.0.0.0/0" }] }],
  }))
  return groupId
}

/** Removes what a journey planted (the security group when it was made, the bucket); a missing one is no error. */
export const removePlanted = async (planted: { readonly groupId: string | undefined; readonly bucket: string }): Promise<void> => {
  const { ec2, s3 } = motoClients()
  if (planted.groupId !== undefined) await ec2.send(new DeleteSecurityGroupCommand({ GroupId: planted.groupId })).catch(() => {})
  await s3.send(new DeleteBucketCommand({ Bucket: planted.bucket })).catch(() => {})
}

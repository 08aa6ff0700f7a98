/**
 * The moto_server account of the scanning journeys (started by moto-setup.ts): the keys the product is given for it and
 * SDK clients a journey uses to plant and remove resources in it.
 */
import { EC2Client } from "@aws-sdk/client-ec2"
import { S3Client } from "@aws-sdk/client-s3"
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

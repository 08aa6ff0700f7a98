import { defineConfig } from "vitest/config"

// End-to-end suite: the real product (built SPA + API + worker + embedded database) started once by global setup,
// driven through Debian Chromium with playwright-core. Files run one at a time: they share one server and 2 cores.
export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.test.ts"],
    environment: "node",
    // moto and the fake Google Cloud / Azure first: the product started by global-setup.ts inherits their
    // AWS_ENDPOINT_URL, GCP_ENDPOINT_URL and AZURE_ENDPOINT_URL.
    globalSetup: ["e2e/support/moto-setup.ts", "e2e/support/cloud-setup.ts", "e2e/support/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 240_000,
  },
})

// @vitest-environment happy-dom
import { render } from "@testing-library/react"
import { describe, expect, it } from "vitest"
import { Identifier } from "../../src/views/ui/identifier.tsx"

describe("Identifier (long ids wrap at their separators)", () => {
  it("puts a break opportunity after every '/' and ':' and keeps the text", () => {
    const id = "arn:aws:s3:::logs/2026/11"
    const { container } = render(<Identifier text={id} />)
    const span = container.firstElementChild!
    expect(span.textContent).toBe(id)
    expect(span.innerHTML).toBe("arn:<wbr>aws:<wbr>s3:<wbr>:<wbr>:<wbr>logs/<wbr>2026/<wbr>11")
  })

  it("leaves a separator-free id alone (it may still wrap anywhere through its class)", () => {
    const { container } = render(<Identifier text="i-0123456789abcdef0" />)
    expect(container.firstElementChild!.innerHTML).toBe("i-0123456789abcdef0")
    expect(container.firstElementChild!.className).not.toBe("")
  })
})

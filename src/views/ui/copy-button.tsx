/** Copy: writes a text to the clipboard and reads "Copied" once it did (the add-account template, the remediation preview). */
import { useState } from "react"
import { Button } from "./button.tsx"

export function CopyButton({ text, label }: { readonly text: string; readonly label: string }) {
  const [copied, setCopied] = useState(false)
  return (
    <Button
      variant="secondary"
      size="sm"
      aria-label={label}
      onPress={() => {
        void navigator.clipboard?.writeText(text).then(() => setCopied(true), () => setCopied(false))
      }}
    >
      {copied ? "Copied" : "Copy"}
    </Button>
  )
}

/** Button: react-aria-components `Button` with the kit's variants (primary, secondary, danger, ghost) and sizes. */
import { Button as AriaButton, composeRenderProps, type ButtonProps as AriaButtonProps } from "react-aria-components"
import { button, type ButtonVariants } from "./button.css.ts"
import { Spinner } from "./spinner.tsx"

export interface ButtonProps extends AriaButtonProps {
  readonly variant?: ButtonVariants["variant"]
  readonly size?: ButtonVariants["size"]
  readonly fullWidth?: boolean
}

export function Button({ variant = "primary", size = "md", fullWidth = false, className, children, ...props }: ButtonProps) {
  return (
    <AriaButton
      {...props}
      className={composeRenderProps(className, (extra) => [button({ variant, size, fullWidth }), extra].filter(Boolean).join(" "))}
    >
      {composeRenderProps(children, (content, { isPending }) => (
        <>
          {isPending ? <Spinner size="sm" tone="inherit" aria-label="Pending" /> : null}
          {content}
        </>
      ))}
    </AriaButton>
  )
}

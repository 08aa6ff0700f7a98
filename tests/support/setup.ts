// Global test set-up. Async queries (findBy*, waitFor) wait up to 5 s instead of 1 s: lazy-loaded screens and
// happy-dom rendering on a loaded 2-core CI machine can take longer than a second, and a slow machine is not a bug.
import { configure } from "@testing-library/dom"

configure({ asyncUtilTimeout: 5_000 })

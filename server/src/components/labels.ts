/** Longest component label. */
export const MAX_LABEL_LENGTH = 32

/** The label rules in one sentence, for error messages, the API description and the UI. */
export const LABEL_RULES =
  "1–32 characters: lowercase letters a–z, digits and dashes, starting with a letter and not ending with a dash, unique among the project's active keys"

/** The shape rules of {@link labelProblem} as one pattern, for the OpenAPI document. */
export const LABEL_PATTERN = `^[a-z]([a-z0-9-]{0,${MAX_LABEL_LENGTH - 2}}[a-z0-9])?$`

/**
 * Checks the shape of a component label; returns why it is refused (naming the broken rule),
 * or undefined when it is acceptable. Uniqueness is checked by the store.
 */
export function labelProblem(label: unknown): string | undefined {
  if (typeof label !== 'string' || label === '') return `label is required (${LABEL_RULES})`
  if (label.length > MAX_LABEL_LENGTH)
    return `label is too long (${label.length} characters): at most ${MAX_LABEL_LENGTH}`
  const bad = /[^a-z0-9-]/.exec(label)
  if (bad !== null)
    return `label may only contain lowercase letters a–z, digits and dashes, not ${JSON.stringify(bad[0])}`
  if (!/^[a-z]/.test(label)) return 'label must start with a lowercase letter'
  if (label.endsWith('-')) return 'label must not end with a dash'
  return undefined
}

/** The message for a label already used by an active key of the project. */
export const duplicateLabel = (label: string) =>
  `label must be unique among the project's active keys: "${label}" is already in use`

/** Input the hook cannot use: reported as one line on stderr, answered with no decision. */
export class HookInputError extends Error {
  override readonly name = 'HookInputError';
}

/** A bundle that does not verify; the message names the first problem. */
export class BundleError extends Error {
  override name = 'BundleError';
}

/**
 * Per-resource series with bounded cardinality: the first `cap` resources seen keep their
 * own label, every later one shares `resource="other"`. A kernel may serve thousands of
 * resource names (one per pull-request environment, say); Prometheus keeps each label value
 * as a series for weeks, so the cap protects the operator's Prometheus, not the kernel.
 */

/** How many resources keep their own series by default. */
export const DEFAULT_RESOURCE_CAP = 50;
/** The label every resource past the cap shares. */
export const OTHER_RESOURCE = 'other';

/**
 * Caches one value per resource label (a record of prom-client children, built once), so
 * the hot path looks a resource up in a Map and touches no label strings.
 */
export class BoundedLabels<T> {
  private readonly byResource = new Map<string, T>();
  private other: T | undefined;

  constructor(
    private readonly cap: number,
    private readonly build: (label: string) => T,
  ) {
    if (!Number.isInteger(cap) || cap < 0)
      throw new RangeError(`the resource cap must be a whole number ≥ 0, not ${cap}`);
  }

  /** The value for `resource`: its own while under the cap, else the shared "other" one. */
  of(resource: string): T {
    const known = this.byResource.get(resource);
    if (known !== undefined) return known;
    // A resource literally named "other" shares the bucket: one series, one meaning.
    if (this.byResource.size >= this.cap || resource === OTHER_RESOURCE)
      return (this.other ??= this.build(OTHER_RESOURCE));
    const made = this.build(resource);
    this.byResource.set(resource, made);
    return made;
  }

  /** The label `resource` is counted under. */
  labelOf(resource: string): string {
    return this.byResource.has(resource) || this.byResource.size < this.cap
      ? resource === OTHER_RESOURCE
        ? OTHER_RESOURCE
        : resource
      : OTHER_RESOURCE;
  }
}

/**
 * Round trips to a shared store (PostgreSQL), counted for the metrics (lease_gate_postgres_
 * round_trips_total): one per query sent, whatever it carries. A process-wide count, as the
 * pools it counts are; the metrics read it at each scrape.
 */
export const storeRoundTrips = { count: 0 };

/** Counts each query `client` sends from now on (a pool's `connect` hands each new one here). */
export function countRoundTrips<C extends { query: (...args: never[]) => unknown }>(client: C): C {
  const query = client.query;
  client.query = function (this: C, ...args: never[]) {
    storeRoundTrips.count += 1;
    return query.apply(this, args);
  };
  return client;
}

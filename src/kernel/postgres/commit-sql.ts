/**
 * Migration 4: a batch commits in one round trip (commit.ts). A replica decides against
 * the rows it last read or wrote, and lease_gate_commit writes its decisions only if
 * every row is still the version it decided on; otherwise it writes nothing and answers
 * the rows as they are, to decide again.
 *
 * - version: a random uuid per writing transaction, so a version is never reused, not
 *   after a row is deleted and made again, not after a failover hands out old xids again.
 *   An older replica's write (rolling upgrade) gets a new one from a trigger.
 * - decided_ms: the clock the row's last decision ran at; a decision runs at a later
 *   one, so each resource's time never goes back, whichever replica decides.
 *
 * lease_gate_commit, in order: the writers stripe shared (locks.ts), the rows locked in
 * resource order (no deadlock between replicas), the versions and the clock checked
 * (the replica's clock, projected from the database's, must not be ahead of it), then
 * lease_gate_listening read, the fence sequence's value (`base`), the batch's fences
 * drawn, the rows and pending entries written with the fences filled in
 * (lease_gate_fenced), and queue-only batches committed without a flush. The order of
 * the draws is the one sequencer.ts relies on: after the rows are locked, `base` before
 * the fences, the keys in the batch's order.
 *
 * A decision takes fence k of its batch before the database draws it: the replica
 * writes the k-th as a placeholder, chr(1) k chr(1) (a number) or chr(1) 'b' k chr(1)
 * (base 36, in a lease id), which JSON text never holds raw (JSON.stringify escapes
 * control characters), and lease_gate_fenced puts the drawn fence in its place.
 */
export const COMMIT_IN_ONE_ROUND_TRIP = `
ALTER TABLE lease_gate_resources
  ADD COLUMN version uuid NOT NULL DEFAULT gen_random_uuid(),
  ADD COLUMN decided_ms float8 NOT NULL DEFAULT 0;

-- A replica older than this schema, still running while the others upgrade, writes rows
-- without a new version: given one here, so no replica's kept version survives its write.
CREATE FUNCTION lease_gate_versioned() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.version := gen_random_uuid();
  RETURN NEW;
END
$fn$;
CREATE TRIGGER lease_gate_versioned BEFORE UPDATE ON lease_gate_resources
  FOR EACH ROW WHEN (NEW.version = OLD.version) EXECUTE FUNCTION lease_gate_versioned();

CREATE FUNCTION lease_gate_base36(n bigint) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
  WITH RECURSIVE d(q, s) AS (
    SELECT n, ''::text
    UNION ALL
    SELECT q / 36, substr('0123456789abcdefghijklmnopqrstuvwxyz', (q % 36)::int + 1, 1) || s
      FROM d WHERE q > 0)
  SELECT CASE WHEN n = 0 THEN '0' ELSE (SELECT s FROM d WHERE q = 0) END
$fn$;

CREATE FUNCTION lease_gate_fenced(doc text, fences bigint[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT CASE WHEN doc IS NULL OR strpos(doc, chr(1)) = 0 THEN doc ELSE (
    SELECT string_agg(CASE
             WHEN p.n % 2 = 1 THEN p.part
             WHEN left(p.part, 1) = 'b' THEN lease_gate_base36(fences[substr(p.part, 2)::int])
             ELSE fences[p.part::int]::text END, '' ORDER BY p.n)
      FROM unnest(string_to_array(doc, chr(1))) WITH ORDINALITY AS p(part, n)) END
$fn$;

CREATE FUNCTION lease_gate_commit(
  p_stripe int, p_plane int, p_now float8, p_names text[], p_expected text[],
  p_states text[], p_deadlines bigint[], p_events text[], p_grants int[], p_fences int,
  p_replica text, p_durable boolean,
  OUT o_conflict boolean, OUT o_clock float8, OUT o_version uuid, OUT o_fences bigint[],
  OUT o_listened text[], OUT o_rows json)
  LANGUAGE plpgsql AS $fn$
DECLARE
  v_base bigint;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(p_stripe + pg_backend_pid() % 16, p_plane);
  PERFORM 1 FROM (SELECT 1 FROM lease_gate_resources AS r
                   WHERE r.resource = ANY(p_names) ORDER BY r.resource FOR UPDATE) AS t;
  -- Read once every lock is held: later than any decision on these rows that committed.
  o_clock := floor(extract(epoch FROM clock_timestamp()) * 1000)::float8;
  o_conflict := p_now > o_clock OR EXISTS (
    SELECT 1 FROM unnest(p_names, p_expected) AS e(resource, expected)
      LEFT JOIN lease_gate_resources AS r ON r.resource = e.resource
     WHERE CASE WHEN e.expected IS NULL THEN r.resource IS NOT NULL
                ELSE r.resource IS NULL OR r.version::text <> e.expected
                     OR r.decided_ms > p_now END);
  IF o_conflict THEN
    SELECT json_agg(json_build_object('resource', r.resource, 'state', r.state,
                                      'version', r.version)) INTO o_rows
      FROM lease_gate_resources AS r WHERE r.resource = ANY(p_names);
    RETURN;
  END IF;
  o_listened := ARRAY(SELECT DISTINCT l.resource FROM lease_gate_listening AS l
                       WHERE l.resource = ANY(p_names) AND l.replica <> p_replica);
  SELECT CASE WHEN f.is_called THEN f.last_value ELSE 0 END INTO v_base FROM lease_gate_fence AS f;
  o_fences := ARRAY(SELECT nextval('lease_gate_fence') FROM generate_series(1, p_fences));
  o_version := gen_random_uuid();
  UPDATE lease_gate_resources AS r
     SET state = (CASE WHEN p_fences = 0 THEN u.state
                       ELSE lease_gate_fenced(u.state, o_fences) END)::jsonb,
         deadline_ms = u.deadline,
         version = o_version, decided_ms = p_now
    FROM unnest(p_names, p_expected, p_states, p_deadlines) AS u(resource, expected, state, deadline)
   WHERE r.resource = u.resource AND u.state IS NOT NULL AND u.expected IS NOT NULL;
  -- Never upserted: a replica that made the row meanwhile fails this (23505), and the batch
  -- is decided again against its row.
  INSERT INTO lease_gate_resources (resource, state, deadline_ms, version, decided_ms)
    SELECT u.resource, (CASE WHEN p_fences = 0 THEN u.state
                             ELSE lease_gate_fenced(u.state, o_fences) END)::jsonb,
           u.deadline, o_version, p_now
      FROM unnest(p_names, p_expected, p_states, p_deadlines) AS u(resource, expected, state, deadline)
     WHERE u.state IS NOT NULL AND u.expected IS NULL ORDER BY u.resource;
  INSERT INTO lease_gate_pending (key, major, event)
    SELECT nextval('lease_gate_key'), CASE WHEN e.g = 0 THEN v_base ELSE o_fences[e.g] END,
           CASE WHEN p_fences = 0 THEN e.event ELSE lease_gate_fenced(e.event, o_fences) END
      FROM unnest(p_events, p_grants) WITH ORDINALITY AS e(event, g, n) ORDER BY e.n;
  -- Only queues moved: not part of the durable record (waiters ask again), so no flush.
  IF NOT p_durable THEN
    PERFORM set_config('synchronous_commit', 'off', true);
  END IF;
END
$fn$;
`;

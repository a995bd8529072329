/**
 * Migration 5: lease_gate_commit (migration 4) with its fences filled in by PL/pgSQL.
 *
 * Migration 4 filled each state's and entry's placeholders with lease_gate_fenced, a
 * SQL function calling lease_gate_base36 (a recursive query) per lease id. PostgreSQL
 * keeps no plan of a SQL function that it cannot inline beyond the statement that calls
 * it, so every batch parsed and planned lease_gate_fenced again, and lease_gate_base36
 * once per lease id it wrote: a profile of the commit's backend under 16 clients put 46 %
 * of its CPU in those two functions, most of it the parser and the planner (issue #59).
 * A PL/pgSQL function is compiled once per connection and its statements keep their
 * plans: lease_gate_filled fills a whole array in one call, each fence's base 36 written
 * once per batch. The placeholders and what they become are migration 4's (commit-sql.ts).
 *
 * lease_gate_commit keeps its arguments and answers, so a replica of the version before,
 * still running while the others upgrade, calls the new one unchanged. What it does and
 * in what order is migration 4's, the version check included; it only skips the
 * statements with nothing to do (no fence to draw, no row to create, no entry to queue).
 */
export const COMMIT_FILLED_IN_PLPGSQL = `
CREATE FUNCTION lease_gate_filled(docs text[], fences bigint[]) RETURNS text[]
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
DECLARE
  named text[];
  parts text[];
  filled text[] := docs;
  f bigint;
  s text;
BEGIN
  IF coalesce(cardinality(fences), 0) = 0 THEN
    RETURN docs;
  END IF;
  -- Each fence in base 36, as lease.ts writes it in a lease id.
  FOR i IN 1 .. cardinality(fences) LOOP
    f := fences[i];
    s := '';
    LOOP
      s := substr('0123456789abcdefghijklmnopqrstuvwxyz', (f % 36)::int + 1, 1) || s;
      f := f / 36;
      EXIT WHEN f <= 0;
    END LOOP;
    named[i] := s;
  END LOOP;
  FOR i IN 1 .. coalesce(cardinality(docs), 0) LOOP
    CONTINUE WHEN docs[i] IS NULL OR strpos(docs[i], chr(1)) = 0;
    -- Split at chr(1): the odd parts are the text, the even ones the placeholders.
    parts := string_to_array(docs[i], chr(1));
    FOR j IN 2 .. cardinality(parts) BY 2 LOOP
      parts[j] := CASE WHEN left(parts[j], 1) = 'b' THEN named[substr(parts[j], 2)::int]
                       ELSE fences[parts[j]::int]::text END;
    END LOOP;
    filled[i] := array_to_string(parts, '');
  END LOOP;
  RETURN filled;
END
$fn$;

CREATE OR REPLACE FUNCTION lease_gate_commit(
  p_stripe int, p_plane int, p_now float8, p_names text[], p_expected text[],
  p_states text[], p_deadlines bigint[], p_events text[], p_grants int[], p_fences int,
  p_replica text, p_durable boolean,
  OUT o_conflict boolean, OUT o_clock float8, OUT o_version uuid, OUT o_fences bigint[],
  OUT o_listened text[], OUT o_rows json)
  LANGUAGE plpgsql AS $fn$
DECLARE
  v_base bigint;
  v_states text[];
  v_events text[];
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
  IF p_fences > 0 THEN
    o_fences := ARRAY(SELECT nextval('lease_gate_fence') FROM generate_series(1, p_fences));
  ELSE
    o_fences := '{}';
  END IF;
  o_version := gen_random_uuid();
  v_states := lease_gate_filled(p_states, o_fences);
  UPDATE lease_gate_resources AS r
     SET state = u.state::jsonb, deadline_ms = u.deadline, version = o_version, decided_ms = p_now
    FROM unnest(p_names, p_expected, v_states, p_deadlines) AS u(resource, expected, state, deadline)
   WHERE r.resource = u.resource AND u.state IS NOT NULL AND u.expected IS NOT NULL;
  -- Never upserted: a replica that made the row meanwhile fails this (23505), and the batch
  -- is decided again against its row. Only a resource read as absent can be made.
  IF array_position(p_expected, NULL) IS NOT NULL THEN
    INSERT INTO lease_gate_resources (resource, state, deadline_ms, version, decided_ms)
      SELECT u.resource, u.state::jsonb, u.deadline, o_version, p_now
        FROM unnest(p_names, p_expected, v_states, p_deadlines) AS u(resource, expected, state, deadline)
       WHERE u.state IS NOT NULL AND u.expected IS NULL ORDER BY u.resource;
  END IF;
  IF cardinality(p_events) > 0 THEN
    v_events := lease_gate_filled(p_events, o_fences);
    INSERT INTO lease_gate_pending (key, major, event)
      SELECT nextval('lease_gate_key'), CASE WHEN e.g = 0 THEN v_base ELSE o_fences[e.g] END, e.event
        FROM unnest(v_events, p_grants) WITH ORDINALITY AS e(event, g, n) ORDER BY e.n;
  END IF;
  -- Only queues moved: not part of the durable record (waiters ask again), so no flush.
  IF NOT p_durable THEN
    PERFORM set_config('synchronous_commit', 'off', true);
  END IF;
END
$fn$;
`;

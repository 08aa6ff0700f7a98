/**
 * Storage that grows with change, not with scans (issue 30; docs/architecture.md "Result storage").
 *
 * A check's rows are kept per **stream**, one per (account, check), as **versions** valid over a range of the stream's
 * findings: a version is written when a scan first sees a row's content, and its range is closed when a later scan of
 * the check no longer has it (changed, or gone). A rescan of an unchanged resource writes nothing.
 *
 * - `result_streams`: one per (account, check); `next_pos` numbers the stream's versions.
 * - `result_rows`: the versions. `pos` names a version in its stream for good (it is the `result_seq` the API shows);
 *   `rank` is 0 for a non-compliant row and 1 otherwise (the finding's order is failing rows first, then by `pos`);
 *   a version belongs to every finding `f` of its stream with `from_finding <= f.id < to_finding` (open versions carry
 *   to_finding = 2147483647). Findings of one stream are written one at a time (the writer locks the stream), so
 *   their ids follow the order they were written in. `digest` is the writer's hash of the content (0: not computed,
 *   for rows converted here; the writer then compares the content itself).
 * - `result_marks`: what one finding says of one of its rows beyond the shared content, only where there is something
 *   to say: the row's change since the previous scan when it is not the finding's `row_delta`, its mute rule, its
 *   remediation record. Written for the live scans only (server/posture/algebra.ts), so a superseded scan's marks,
 *   like its versions, never change.
 * - `findings` gains `stream_id`, `row_delta` (the change of every row without a mark: 'first', 'unchanged', or NULL
 *   for rows written before migration 0008) and `page_marks` (the `pos` of the row at positions 1000, 2000, … of the
 *   finding's order, so any page of a finding starts at most 999 rows from a key: server/scans/findings-store.ts).
 * - `resources`: its index on last_seen_at goes and its pages keep room (fillfactor 70), so the sighting update every
 *   scan makes to every resource is a HOT update rather than new entries in each index.
 * - `results` becomes a view with the columns the table had (`seq` is `pos`) plus `rank`: every reader that read the
 *   table reads the same rows through it (security_invoker: row-level security of the tables applies to the reader).
 *   An UPDATE of its `delta`, `muted_by` or `remediate` writes the finding's mark (an INSTEAD OF trigger); its content
 *   columns cannot be updated. An INSERT writes a version valid for that one finding (tools and tests; the writer
 *   shares versions). A finding inserted without `stream_id` gets its stream from a BEFORE INSERT trigger.
 *
 * Conversion: each stream's old rows are grouped into versions (a row whose content is identical in consecutive
 * findings of its stream becomes one version: "gaps and islands" over the findings' order), every old row's
 * (finding, seq) is mapped to its version's pos (remediations follow), and its per-scan state becomes a mark. It runs
 * as the owner with row-level security relaxed for this transaction only (FORCE restored before commit), as in 0006.
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** `to_finding` of an open version. */
export const OPEN_VERSION = 2_147_483_647
/** Rows between two page marks. */
export const PAGE_MARK = 1_000

const relaxed = ["findings", "scans", "remediations", "results", "accounts"]

const before = [
  `CREATE TABLE result_streams (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer NOT NULL,
     account_id integer NOT NULL,
     check_id text NOT NULL,
     next_pos integer NOT NULL DEFAULT 0 CHECK (next_pos >= 0),
     UNIQUE (account_id, check_id),
     UNIQUE (id, workspace_id),
     FOREIGN KEY (account_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE CASCADE
   )`,
  // No foreign key to result_streams (as results had none to findings: write rate); a trigger below removes a stream's
  // rows with the stream. fillfactor leaves room on each page for the one update a version gets (closing its range).
  `CREATE TABLE result_rows (
     workspace_id integer NOT NULL,
     stream_id integer NOT NULL,
     pos integer NOT NULL CHECK (pos >= 0),
     rank smallint NOT NULL CHECK (rank IN (0, 1)),
     from_finding integer NOT NULL,
     to_finding integer NOT NULL DEFAULT ${OPEN_VERSION},
     digest bigint NOT NULL DEFAULT 0,
     resource_id text NOT NULL,
     resource_uid text NOT NULL,
     region text NOT NULL,
     compliant boolean,
     fields jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(fields) = 'object'),
     PRIMARY KEY (workspace_id, stream_id, pos),
     CHECK (from_finding < to_finding)
   ) WITH (fillfactor = 90)`,
  `CREATE TABLE result_marks (
     workspace_id integer NOT NULL,
     finding_id integer NOT NULL,
     pos integer NOT NULL,
     delta text CHECK (delta IN ('first', 'new', 'unchanged', 'fixed')),
     muted_by integer,
     remediate jsonb CHECK (remediate IS NULL OR jsonb_typeof(remediate) = 'object'),
     PRIMARY KEY (workspace_id, finding_id, pos)
   )`,
  `ALTER TABLE findings
     ADD COLUMN stream_id integer,
     ADD COLUMN row_delta text CHECK (row_delta IN ('first', 'unchanged')),
     ADD COLUMN page_marks integer[] NOT NULL DEFAULT '{}'`,
  ...relaxed.map((t) => `ALTER TABLE ${t} NO FORCE ROW LEVEL SECURITY`),

  // Streams, and each finding's.
  `INSERT INTO result_streams (workspace_id, account_id, check_id)
   SELECT DISTINCT f.workspace_id, s.account_id, f.check_id FROM findings f JOIN scans s ON s.id = f.scan_id
   ORDER BY 2, 3`,
  `UPDATE findings f SET stream_id = rs.id FROM scans s, result_streams rs
   WHERE s.id = f.scan_id AND rs.account_id = s.account_id AND rs.check_id = f.check_id`,
  `ALTER TABLE findings ALTER COLUMN stream_id SET NOT NULL`,
  `UPDATE findings f SET row_delta = x.row_delta
   FROM (SELECT finding_id, CASE WHEN bool_or(delta = 'first') THEN 'first' WHEN bool_and(delta IS NULL) THEN NULL ELSE 'unchanged' END AS row_delta
         FROM results GROUP BY finding_id) x
   WHERE f.id = x.finding_id`,
  `UPDATE findings SET row_delta = 'unchanged' WHERE resources_checked = 0`,

  // Each finding's place in its stream, then each old row with its content key, its occurrence among identical rows of
  // its finding, and its island (consecutive findings holding the same row).
  `CREATE TEMP TABLE conv_findings ON COMMIT DROP AS
   SELECT id, stream_id, dense_rank() OVER (PARTITION BY stream_id ORDER BY id)::int AS fno FROM findings`,
  `CREATE UNIQUE INDEX ON conv_findings (stream_id, fno)`,
  `CREATE TEMP TABLE conv_rows ON COMMIT DROP AS
   SELECT y.*, (y.fno - row_number() OVER (PARTITION BY y.stream_id, y.content, y.occ ORDER BY y.fno))::int AS grp
   FROM (
     SELECT x.*, row_number() OVER (PARTITION BY x.finding_id, x.content ORDER BY x.seq)::int AS occ
     FROM (
       SELECT r.workspace_id, r.finding_id, r.seq, cf.stream_id, cf.fno,
              md5(r.resource_id || chr(31) || r.resource_uid || chr(31) || r.region || chr(31) || coalesce(r.compliant::text, '-')
                  || chr(31) || r.fields::text) AS content
       FROM results r JOIN conv_findings cf ON cf.id = r.finding_id
     ) x
   ) y`,
  `CREATE TEMP TABLE conv_versions ON COMMIT DROP AS
   SELECT v.*, (row_number() OVER (PARTITION BY v.stream_id ORDER BY v.first_fno, v.first_seq) - 1)::int AS pos
   FROM (
     SELECT stream_id, content, occ, grp, min(workspace_id) AS workspace_id, min(fno) AS first_fno, max(fno) AS last_fno,
            (array_agg(finding_id ORDER BY fno))[1] AS first_finding, (array_agg(seq ORDER BY fno))[1] AS first_seq
     FROM conv_rows GROUP BY stream_id, content, occ, grp
   ) v`,
  `INSERT INTO result_rows (workspace_id, stream_id, pos, rank, from_finding, to_finding, resource_id, resource_uid, region, compliant, fields)
   SELECT v.workspace_id, v.stream_id, v.pos, CASE WHEN r.compliant IS FALSE THEN 0 ELSE 1 END, v.first_finding,
          coalesce(nf.id, ${OPEN_VERSION}), r.resource_id, r.resource_uid, r.region, r.compliant, r.fields
   FROM conv_versions v
   JOIN results r ON r.finding_id = v.first_finding AND r.seq = v.first_seq
   LEFT JOIN conv_findings nf ON nf.stream_id = v.stream_id AND nf.fno = v.last_fno + 1`,
  `UPDATE result_streams rs SET next_pos = x.n FROM (SELECT stream_id, max(pos) + 1 AS n FROM conv_versions GROUP BY stream_id) x
   WHERE rs.id = x.stream_id`,

  // Every old row's (finding, seq) → its version's pos.
  `CREATE TEMP TABLE conv_map ON COMMIT DROP AS
   SELECT c.workspace_id, c.finding_id, c.seq, v.pos
   FROM conv_rows c JOIN conv_versions v ON v.stream_id = c.stream_id AND v.content = c.content AND v.occ = c.occ AND v.grp = c.grp`,
  `CREATE UNIQUE INDEX ON conv_map (finding_id, seq)`,
  `INSERT INTO result_marks (workspace_id, finding_id, pos, delta, muted_by, remediate)
   SELECT r.workspace_id, r.finding_id, m.pos, CASE WHEN r.delta IS DISTINCT FROM f.row_delta THEN r.delta END, r.muted_by, r.remediate
   FROM results r JOIN conv_map m ON m.finding_id = r.finding_id AND m.seq = r.seq JOIN findings f ON f.id = r.finding_id
   WHERE r.remediate IS NOT NULL OR r.muted_by IS NOT NULL OR (r.delta IS DISTINCT FROM f.row_delta AND r.delta IS NOT NULL)`,
  `UPDATE remediations x SET result_seq = m.pos FROM conv_map m WHERE m.finding_id = x.finding_id AND m.seq = x.result_seq`,
  // Page marks: the pos at positions 1000, 2000, … of each finding's order (rank, pos).
  `UPDATE findings f SET page_marks = x.marks
   FROM (SELECT o.finding_id, array_agg(o.pos ORDER BY o.n) AS marks
         FROM (SELECT m.finding_id, m.pos, row_number() OVER (PARTITION BY m.finding_id ORDER BY rr.rank, m.pos) - 1 AS n
               FROM conv_map m JOIN findings f2 ON f2.id = m.finding_id
               JOIN result_rows rr ON rr.workspace_id = m.workspace_id AND rr.stream_id = f2.stream_id AND rr.pos = m.pos) o
         WHERE o.n > 0 AND o.n % ${PAGE_MARK} = 0 GROUP BY o.finding_id) x
   WHERE f.id = x.finding_id`,

  `DROP TRIGGER findings_delete_results ON findings`,
  `DROP FUNCTION results_delete_with_findings()`,
  `DROP TABLE results`,
]

const after = [
  `CREATE INDEX result_rows_order_idx ON result_rows (workspace_id, stream_id, rank, pos)`,
  `CREATE INDEX result_rows_resource_idx ON result_rows (workspace_id, resource_uid)`,
  `CREATE INDEX findings_stream_idx ON findings (workspace_id, stream_id, id)`,
  // The inventory's sighting columns change at every scan of every resource: with no index on them and room on each
  // page, those updates are HOT (no index entry, the old version pruned with the page) instead of one new entry in
  // every index of the table per resource per scan. Nothing reads resources in last_seen_at order.
  `DROP INDEX resources_workspace_idx`,
  `CREATE INDEX resources_workspace_idx ON resources (workspace_id, account_id)`,
  `ALTER TABLE resources SET (fillfactor = 70)`,
  // A finding's marks go with it; a stream's versions with the stream (an account's deletion cascades to both).
  `CREATE FUNCTION result_marks_delete_with_findings() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       DELETE FROM result_marks m USING gone g WHERE m.workspace_id = g.workspace_id AND m.finding_id = g.id;
       RETURN NULL;
     END $$`,
  `CREATE TRIGGER findings_delete_marks AFTER DELETE ON findings REFERENCING OLD TABLE AS gone
     FOR EACH STATEMENT EXECUTE FUNCTION result_marks_delete_with_findings()`,
  `CREATE FUNCTION result_rows_delete_with_streams() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       DELETE FROM result_rows r USING gone g WHERE r.workspace_id = g.workspace_id AND r.stream_id = g.id;
       RETURN NULL;
     END $$`,
  `CREATE TRIGGER result_streams_delete_rows AFTER DELETE ON result_streams REFERENCING OLD TABLE AS gone
     FOR EACH STATEMENT EXECUTE FUNCTION result_rows_delete_with_streams()`,
  `CREATE VIEW results WITH (security_invoker = true) AS
   SELECT f.workspace_id, f.id AS finding_id, r.pos AS seq, f.scan_id, r.rank, r.resource_id, r.resource_uid, r.region,
          r.compliant, r.fields, m.remediate, coalesce(m.delta, f.row_delta) AS delta, m.muted_by
   FROM findings f
   JOIN result_rows r ON r.workspace_id = f.workspace_id AND r.stream_id = f.stream_id AND r.from_finding <= f.id AND r.to_finding > f.id
   LEFT JOIN result_marks m ON m.workspace_id = f.workspace_id AND m.finding_id = f.id AND m.pos = r.pos`,
  // A page of a finding: its (rank, pos) in order from `result_rows_order_idx`, then its rows by that full key. As
  // functions whose plans hold without table statistics (the embedded database never analyses; a fresh PostgreSQL
  // table neither, until autovacuum does — a planner then takes a stream for one row and picks a bitmap scan and a
  // sort, or a hash of the whole stream): settings rule those out, and LATERAL … OFFSET 0 makes each row one index
  // probe. A page reads ~50 index entries instead of every version of the stream. SECURITY INVOKER: the caller's
  // row-level security applies.
  `CREATE FUNCTION result_page_positions(p_workspace integer, p_stream integer, p_finding integer, p_rank integer, p_pos integer,
                                         p_skip integer, p_limit integer) RETURNS TABLE (rank smallint, pos integer)
     LANGUAGE sql STABLE SET enable_sort = off SET enable_bitmapscan = off SET enable_seqscan = off AS $$
     SELECT r.rank, r.pos FROM result_rows r
     WHERE r.workspace_id = p_workspace AND r.stream_id = p_stream AND r.from_finding <= p_finding AND r.to_finding > p_finding
       AND (r.rank, r.pos) >= (p_rank, p_pos)
     ORDER BY r.rank, r.pos OFFSET p_skip LIMIT p_limit
   $$`,
  `CREATE FUNCTION result_rows_at(p_workspace integer, p_finding integer, p_ranks integer[], p_positions integer[]) RETURNS SETOF results
     LANGUAGE sql STABLE SET enable_sort = off SET enable_bitmapscan = off SET enable_seqscan = off
     SET enable_hashjoin = off SET enable_mergejoin = off AS $$
     SELECT f.workspace_id, f.id, r.pos, f.scan_id, r.rank, r.resource_id, r.resource_uid, r.region, r.compliant, r.fields,
            m.remediate, coalesce(m.delta, f.row_delta), m.muted_by
     FROM findings f
     CROSS JOIN LATERAL unnest(p_ranks, p_positions) AS p(rank, pos)
     CROSS JOIN LATERAL (SELECT * FROM result_rows r0 WHERE r0.workspace_id = f.workspace_id AND r0.stream_id = f.stream_id
                          AND r0.rank = p.rank AND r0.pos = p.pos OFFSET 0) r
     LEFT JOIN LATERAL (SELECT * FROM result_marks m0 WHERE m0.workspace_id = f.workspace_id AND m0.finding_id = f.id
                          AND m0.pos = r.pos OFFSET 0) m ON true
     WHERE f.workspace_id = p_workspace AND f.id = p_finding AND r.from_finding <= f.id AND r.to_finding > f.id
   $$`,
  // An UPDATE of the view writes what a finding says of its row (its marks); a row's content is shared by every
  // finding of its range and is never changed through one of them.
  `CREATE FUNCTION results_update_marks() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF (NEW.workspace_id, NEW.finding_id, NEW.seq, NEW.scan_id, NEW.rank, NEW.resource_id, NEW.resource_uid, NEW.region, NEW.compliant, NEW.fields)
          IS DISTINCT FROM
          (OLD.workspace_id, OLD.finding_id, OLD.seq, OLD.scan_id, OLD.rank, OLD.resource_id, OLD.resource_uid, OLD.region, OLD.compliant, OLD.fields) THEN
         RAISE EXCEPTION 'a result row''s content is shared by the findings of its range: only delta, muted_by and remediate change';
       END IF;
       INSERT INTO result_marks (workspace_id, finding_id, pos, delta, muted_by, remediate)
       VALUES (OLD.workspace_id, OLD.finding_id, OLD.seq, NEW.delta, NEW.muted_by, NEW.remediate)
       ON CONFLICT (workspace_id, finding_id, pos) DO UPDATE
         SET delta = excluded.delta, muted_by = excluded.muted_by, remediate = excluded.remediate;
       RETURN NEW;
     END $$`,
  `CREATE TRIGGER results_update INSTEAD OF UPDATE ON results FOR EACH ROW EXECUTE FUNCTION results_update_marks()`,
  // An INSERT into the view writes a version valid for that one finding (to_finding = finding + 1), at `seq` when the
  // stream does not use it yet, else at the stream's next pos. The writer never goes this way (it shares versions).
  `CREATE FUNCTION results_insert_version() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE
       s integer;
       p integer;
     BEGIN
       SELECT f.stream_id INTO s FROM findings f WHERE f.workspace_id = NEW.workspace_id AND f.id = NEW.finding_id;
       IF s IS NULL THEN RAISE EXCEPTION 'finding % not found', NEW.finding_id; END IF;
       PERFORM 1 FROM result_streams rs WHERE rs.id = s FOR UPDATE;
       p := NEW.seq;
       IF p IS NULL OR EXISTS (SELECT 1 FROM result_rows r WHERE r.workspace_id = NEW.workspace_id AND r.stream_id = s AND r.pos = p) THEN
         SELECT rs.next_pos INTO p FROM result_streams rs WHERE rs.id = s;
       END IF;
       UPDATE result_streams SET next_pos = greatest(next_pos, p + 1) WHERE id = s;
       INSERT INTO result_rows (workspace_id, stream_id, pos, rank, from_finding, to_finding, resource_id, resource_uid, region, compliant, fields)
       VALUES (NEW.workspace_id, s, p, CASE WHEN NEW.compliant IS FALSE THEN 0 ELSE 1 END, NEW.finding_id, NEW.finding_id + 1,
               NEW.resource_id, NEW.resource_uid, NEW.region, NEW.compliant, coalesce(NEW.fields, '{}'::jsonb));
       IF NEW.delta IS NOT NULL OR NEW.muted_by IS NOT NULL OR NEW.remediate IS NOT NULL THEN
         INSERT INTO result_marks (workspace_id, finding_id, pos, delta, muted_by, remediate)
         VALUES (NEW.workspace_id, NEW.finding_id, p, NEW.delta, NEW.muted_by, NEW.remediate);
       END IF;
       NEW.seq := p;
       NEW.rank := CASE WHEN NEW.compliant IS FALSE THEN 0 ELSE 1 END;
       RETURN NEW;
     END $$`,
  `CREATE TRIGGER results_insert INSTEAD OF INSERT ON results FOR EACH ROW EXECUTE FUNCTION results_insert_version()`,
  // Every finding belongs to its (account, check) stream: one written without naming it gets it here (created when new).
  `CREATE FUNCTION findings_stream_of() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.stream_id IS NULL THEN
         INSERT INTO result_streams (workspace_id, account_id, check_id)
         SELECT NEW.workspace_id, s.account_id, NEW.check_id FROM scans s WHERE s.workspace_id = NEW.workspace_id AND s.id = NEW.scan_id
         ON CONFLICT (account_id, check_id) DO UPDATE SET next_pos = result_streams.next_pos
         RETURNING id INTO NEW.stream_id;
       END IF;
       RETURN NEW;
     END $$`,
  `CREATE TRIGGER findings_stream BEFORE INSERT ON findings FOR EACH ROW EXECUTE FUNCTION findings_stream_of()`,
  ...["result_streams", "result_rows", "result_marks"].flatMap((table) => [
    `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`,
    `ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`,
    `CREATE POLICY ${table}_scope ON ${table} FOR ALL USING (workspace_id = app_current_workspace_id())
       WITH CHECK (workspace_id = app_current_workspace_id())`,
    // The validated read cache (migration 0014): every write records its workspace.
    ...([["insert", "NEW TABLE AS new_rows"], ["update", "NEW TABLE AS new_rows"], ["delete", "OLD TABLE AS old_rows"]] as const).map(
      ([event, referencing]) => `CREATE TRIGGER ${table}_note_${event} AFTER ${event.toUpperCase()} ON ${table}
         REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
    ),
    `CREATE TRIGGER ${table}_note_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
  ]),
  `GRANT SELECT, INSERT, UPDATE, DELETE ON result_streams, result_rows, result_marks TO cloud_audit_app`,
  `REVOKE ALL ON FUNCTION result_page_positions(integer, integer, integer, integer, integer, integer, integer) FROM PUBLIC`,
  `GRANT EXECUTE ON FUNCTION result_page_positions(integer, integer, integer, integer, integer, integer, integer) TO cloud_audit_app`,
  `REVOKE ALL ON FUNCTION result_rows_at(integer, integer, integer[], integer[]) FROM PUBLIC`,
  `GRANT EXECUTE ON FUNCTION result_rows_at(integer, integer, integer[], integer[]) TO cloud_audit_app`,
  `GRANT SELECT, INSERT, UPDATE ON results TO cloud_audit_app`,
  ...relaxed.filter((t) => t !== "results").map((t) => `ALTER TABLE ${t} FORCE ROW LEVEL SECURITY`),
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of [...before, ...after]) yield* sql.unsafe(statement)
})

# bench/inputs.sh - the real programs' inputs, shared by the benchmarks
# (sourced).  bench_inputs DIR TEXT_BYTES ROWS writes DIR/text (text that
# compresses like source code) and DIR/q.sql (a query script over ROWS
# rows) from the checkout at $top.  bench_b64 DIR BYTES writes DIR/b64:
# about BYTES of base64 text of random bytes, the input the fast-analysis
# issue measured xz on (its matches short, its branches the data's).
bench_inputs() {
	for _i in 1 2 3 4 5 6; do cat "$top"/recorder/*.c "$top"/formats/*.c "$top"/man/*; done >"$1/text0"
	for _i in 1 2 3 4 5 6 7 8; do cat "$1/text0"; done | head -c "$2" >"$1/text"
	cat >"$1/q.sql" <<SQL
CREATE TABLE t(a INTEGER, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<$3)
INSERT INTO t SELECT x, hex(randomblob(8)) FROM c;
CREATE INDEX ti ON t(b);
SELECT count(*), sum(a) FROM t WHERE b > '8';
SELECT a % 7, count(*) FROM t GROUP BY a % 7 ORDER BY 1;
SQL
}

bench_b64() {
	head -c $(($2 * 3 / 4)) /dev/urandom | base64 >"$1/b64"
}

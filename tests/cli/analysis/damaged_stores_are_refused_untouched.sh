#!/usr/bin/env bash
# Damaged result stores (a dropped table, a renamed column, an orphaned index, a truncated file,
# text) are refused by every command that reads or writes stores, with a message naming what
# is wrong, and each refused command leaves every input file byte-identical (issue 31).
# shellcheck source=tests/cli/analysis/lib.sh
source "$(dirname "$0")/lib.sh"
"$GMS_BIN" sweep "$UNET" --policies dtr --budgets 0.5 --db good.db --quiet
damage() { # $1: the copy, $2: python statements on the sqlite3 connection c
  cp good.db "$1"
  python3 -c "import sqlite3
c = sqlite3.connect('$1')
$2
c.commit()"
}
damage no-timelines.db "c.execute('DROP TABLE timelines')"
damage renamed.db "c.execute('ALTER TABLE runs RENAME COLUMN overhead TO ovh')"
damage orphan.db "c.execute('PRAGMA writable_schema = ON')
c.execute(\"UPDATE sqlite_master SET sql = 'CREATE TABLE runs (id INTEGER PRIMARY KEY, trace_hash TEXT)' WHERE name = 'runs'\")"
head -c 5000 good.db > truncated.db
echo "not a store" > text.db

sums() { md5sum "$UNET" good.db "$@"; }
for db in no-timelines.db renamed.db orphan.db truncated.db text.db; do
  case $db in
    no-timelines.db) why="a damaged result store: its table 'timelines' is missing \\(schema version [0-9]+ has it\\); it was left unchanged" ;;
    renamed.db) why="a damaged result store: table 'runs' has no column 'overhead'" ;;
    *) why="(corrupt or )?not a SQLite database" ;;
  esac
  before=$(sums "$db")
  expect_fail "$db: $why" "$GMS_BIN" sweep "$UNET" --policies lru --budgets 0.5 --db "$db" --quiet
  expect_fail "$db: $why" "$GMS_BIN" db runs "$db"
  expect_fail "$db: $why" "$GMS_BIN" db export "$db" --json -o out.json
  expect_fail "$db: $why" "$GMS_BIN" db merge good.db "$db" -o merged.db
  expect_fail "$db: $why" "$GMS_BIN" plot overhead "$db" -o chart.png
  expect_fail "$db: $why" "$GMS_BIN" sim "$UNET" --budget 0.5 --db "$db"
  [ "$(sums "$db")" = "$before" ] || fail "a refused command changed $db or an input: $(sums "$db")"
  for f in out.json merged.db chart.png "$db-wal" "$db-shm" "$db-journal"; do
    [ ! -e "$f" ] || fail "a refused command on $db left $f"
  done
done
no_temp_files
echo PASS

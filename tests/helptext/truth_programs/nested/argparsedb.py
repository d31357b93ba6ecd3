"""An argparse program whose subcommand in the middle has options of its own, one required: a
command in it is run as ``argparsedb [--verbose] db --url URL [--pool N] migrate [--dry-run] NAME``.
Prints what it parsed, as JSON."""

import argparse
import json

parser = argparse.ArgumentParser(prog="argparsedb", description="Manages things.")
parser.add_argument("--verbose", action="store_true", help="talk more")
commands = parser.add_subparsers(dest="command", required=True)
db = commands.add_parser("db", help="work on the database")
db.add_argument("--url", required=True, help="the database's address")
db.add_argument("--pool", type=int, default=1, help="connections at once")
actions = db.add_subparsers(dest="action", required=True)
migrate = actions.add_parser("migrate", help="run one migration")
migrate.add_argument("--dry-run", action="store_true", help="only say what would change")
migrate.add_argument("name", help="the migration")

if __name__ == "__main__":
    arguments = vars(parser.parse_args())
    print(json.dumps({key: arguments[key] for key in ("verbose", "url", "pool", "dry_run", "name")}, sort_keys=True))

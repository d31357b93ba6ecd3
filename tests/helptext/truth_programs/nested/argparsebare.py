"""An argparse program whose subparsers were added without ``help=`` (as defopt adds its nested
groups): argparse names them only in the braces, "{repo,build}", and lists the others under it.
Prints what it parsed, as JSON."""

import argparse
import json

parser = argparse.ArgumentParser(prog="argparsebare", description="Manages things.")
commands = parser.add_subparsers(dest="command", required=True)
repo = commands.add_parser("repo", aliases=["repository"])  # no help=: not in the list under the braces
actions = repo.add_subparsers(dest="action", required=True)
add = actions.add_parser("add", aliases=["a"], help="add a repository")
add.add_argument("--force", action="store_true", help="replace one of that name")
add.add_argument("name", help="its name")
actions.add_parser("hook")  # no help= either: a command its author keeps out of the list
build = commands.add_parser("build", help="build everything")
build.add_argument("--jobs", type=int, default=1, help="at once")

if __name__ == "__main__":
    print(json.dumps(vars(parser.parse_args()), sort_keys=True))

"""argparse lists and optional values at the program's and a group's level, before a command's
word. Prints what it parsed, as JSON."""

import argparse
import json

p = argparse.ArgumentParser(prog="apL", description="Lists.")
p.add_argument("--inc", nargs="+", help="include dirs")
p.add_argument("--opt", nargs="*", help="optional list")
p.add_argument("-t", dest="tee", nargs="+", help="short list")
p.add_argument("--verbose", action="store_true", help="talk more")
p.add_argument("--color", nargs="?", const="auto", help="colour")
c = p.add_subparsers(dest="command", required=True)
g = c.add_parser("grp", help="a group")
g.add_argument("--tags", nargs="+", help="tags")
g.add_argument("--labels", nargs="*", help="labels")
g.add_argument("-x", dest="ex", nargs="+", help="short-only list")
g.add_argument("--num", type=int, nargs="+", help="numbers")
g.add_argument("--force", action="store_true", help="force")
g.add_argument("--level", nargs="?", const="hi", help="level")
a = g.add_subparsers(dest="action", required=True)
r = a.add_parser("run", help="run it")
r.add_argument("--keys", nargs="+", help="keys")
r.add_argument("target", help="the target")
if __name__ == "__main__":
    print(json.dumps(vars(p.parse_args()), sort_keys=True))

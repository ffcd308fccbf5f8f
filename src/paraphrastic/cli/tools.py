"""Tools: the generated files that DVC reads (workflow/runs.yaml, dvc.yaml) and a starting params.yaml."""

from __future__ import annotations

import sys

from paraphrastic.atomic import write_text


def grids(args, load_config) -> None:
    from paraphrastic.configuration.check import check
    from paraphrastic.pipeline.dvc import runs_file

    config = load_config(args)
    tables = check(config)  # every job's settings and every row a key names (a misspelt key stops here)
    for row, names in tables.rows.items():
        print(f"{row}: {len(names)} run(s)")
    print(f"{len(tables.runs)} runs, {len(tables.jobs)} jobs counting seeds; {len(tables.supervised_jobs)} supervised "
          f"jobs; every job's settings are valid (data profile {config['data_profile']})")
    if args.write:
        write_text(args.write, runs_file(config, tables))
        print(f"wrote {args.write}")


def dvc_yaml(args) -> None:
    from paraphrastic.pipeline.dvc import dvc_yaml as generate

    text = generate()
    if args.write:
        write_text(args.write, text)
        print(f"wrote {args.write}")
    else:
        print(text, end="")


def default_params(args) -> None:
    from pathlib import Path

    from paraphrastic import resources
    from paraphrastic.errors import PipelineError

    source = resources.find(resources.TINY_PARAMS if args.tiny else resources.DEFAULT_PARAMS)
    text = source.read_text(encoding="utf-8")
    if not args.write:
        print(text, end="")
        return
    if Path(args.write).exists():
        raise PipelineError(f"{args.write}: exists; not overwritten (remove it, or give another path)")
    write_text(args.write, text)
    print(f"wrote {args.write} (from {source})")


def compare_metrics(args) -> None:
    from paraphrastic.report.compare_metrics import compare

    print(compare(args.first, args.second, every=args.all))


def verify(args) -> None:
    from paraphrastic.errors import PipelineError
    from paraphrastic.pipeline.verify import verify as check

    result = check(args.data)
    for problem in result.problems:
        print(problem)
    sys.stdout.flush()  # the problems before the error line that sums them up, also where both go to one file
    if result.problems:
        raise PipelineError(f"{len(result.problems)} problem(s) in {args.data} ({result.counted()} checked by hash)")
    print(f"{args.data}: every file is what its record says ({result.counted()} checked by hash)")


def add_commands(sub, load_config) -> None:
    def add(command: str, text: str):
        return sub.add_parser(command, help=text, description=text)

    p = add("grids", "list the training runs the grids and experiments expand into")
    p.add_argument("--write", metavar="PATH", help="also write them, with every job table, as YAML for dvc.yaml "
                                                   "(workflow/runs.yaml)")
    p.set_defaults(func=lambda args: grids(args, load_config))

    p = add("default-params", "the params.yaml this version ships (the paper's grids on the offline data profile), to "
                              "start a config from")
    p.add_argument("--tiny", action="store_true", help="the tiny config the tests run (params.test.yaml) instead")
    p.add_argument("--write", metavar="PATH", help="write it to this new file instead of standard output")
    p.set_defaults(func=default_params)

    p = add("compare-metrics", "two runs' metrics.json side by side, one metric a line (what dvc metrics show A B "
                               "prints a column each)")
    p.add_argument("first", help="a metrics.json (docs/offline/metrics.json: the committed offline run's)")
    p.add_argument("second", help="another (data/report/metrics.json: your run's)")
    p.add_argument("--all", action="store_true", help="also the metrics only one of them has")
    p.set_defaults(func=compare_metrics)

    p = add("verify", "check every raw file, table, matrix and result of a data folder by hash against its record "
                      "(fetch's FETCHED.json, the record written with it), and every model, Stanza's, the report's "
                      "and the static model's files against the record beside them, whatever the files' times say")
    p.add_argument("--data", default="data", help="the data folder (default: %(default)s)")
    p.set_defaults(func=verify)

    p = add("dvc-yaml", "dvc.yaml, generated from the stage graph in pipeline/graph.py")
    p.add_argument("--write", metavar="PATH", help="write it to this path (dvc.yaml) instead of standard output")
    p.set_defaults(func=dvc_yaml)

# Report phase: our numbers beside the paper's tables, learning curves, stated data deviations.


rule report:
    input:
        results=expand("data/results/{experiment}.json", experiment=EXPERIMENTS),
        baseline="data/results/baseline.json",
        models=expand("data/models/{run}/train.json", run=RUNS),
        histories=expand("data/models/{run}/history.json", run=RUNS),
        stats=["data/corpus/train_stats.json", "data/corpus/match_summary.json", "data/vocab/coverage.json"],
        code=code_paths("report"),
    output:
        md="data/report/report.md",
        html="data/report/report.html",
        plot="data/report/learning_curves.png",
        metrics="data/report/metrics.json",
        runs="data/report/runs.csv",
    params:
        settings=settings_of("report", "paper_tables", "experiments", "grids", "grid_thinning", "train"),
    shell:
        "{CLI} report --data-dir data --out-dir data/report"

# Report phase: our numbers beside the paper's tables, learning curves, stated data deviations.


rule report:
    input:
        results=expand("data/results/{experiment}.json", experiment=EXPERIMENTS),
        baseline="data/results/baseline.json",
        models=expand("data/models/{experiment}/train.json", experiment=EXPERIMENTS),
        histories=expand("data/models/{experiment}/history.csv", experiment=EXPERIMENTS),
        stats=["data/corpus/train_stats.json", "data/corpus/match_summary.json", "data/vocab/coverage.json"],
        code=code_paths("report"),
    output:
        md="data/report/report.md",
        html="data/report/report.html",
        plot="data/report/learning_curves.png",
        metrics="data/report/metrics.json",
    params:
        settings=settings_of("report", "paper_tables", "experiments", "train"),
    shell:
        "{CLI} report --data-dir data --out-dir data/report"

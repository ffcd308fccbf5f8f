"""Small configs for the experiment tests: one explicit experiment and one grid row; a supervised section."""


def base_config(**extra) -> dict:
    c = {"data_profile": "offline", "experiments": {"solo": {"model": "avg", "train_set": "ppdb", "epochs": 1}},
         "grids": [{"id": "g", "model": "lstm", "train_set": "simpwiki", "epochs": 3, "fixed": {"scramble": 0.5},
                    "search": {"margin": [0.4, 0.8], "lambda_w": [1e-5, 0.0],
                               "reg": [{"dropout": 0.2}, {"word_dropout": 0.4}]}}]}
    c.update(extra)
    return c


def supervised_config(**extra) -> dict:
    sup = {"tasks": ["sts", "sick"], "train": {"epochs": 10, "batch_size": 25, "lambda_w": 0.0},
           "grids": [{"id": "s-avg", "model": "avg", "search": {"lambda_w": [1e-5, 0.0], "dropout": [0.2, 0.4]}},
                     {"id": "s-uni", "model": "gran", "init": "g", "tasks": ["sick"], "seeds": 2,
                      "search": {"lambda_w": [1.0, 1e-3, 0.0], "lambda_c": [1e-3, 0.0]}}],
           "thinning": {"offline": {"lambda_w": [0.0, 1e-3], "dropout": [0.2]}}}
    sup.update(extra)
    return base_config(supervised=sup, seeds=1)

"""fetch: every upstream file the data profile and the evaluation sets need, from the offline mirror or its
URL (through the resumable download cache), sha256-verified, into data/raw (with FETCHED.json, the record
of what came from where)."""

from __future__ import annotations

from paraphrastic.configuration.params import eval_sets, gate_sentence_files, mirror_dir, profile, simpwiki_files
from paraphrastic.data.fetch import fetch_all, load_manifest
from paraphrastic.data.similarity_tasks import pwim_raw_files, supervised_raw_files


def required_raw_files(config: dict) -> list[str]:
    """Paths under data/raw the active profile and evaluation sets need (the fetch stage's work list)."""
    prof = profile(config)
    files = [f for pair in simpwiki_files(config) + gate_sentence_files(config) for f in pair]
    files.append(prof["ppdb"]["path"])
    files.append(prof["embeddings"])
    files += [prof["treebank"]["train"], prof["treebank"]["dev"]]
    files += [f for s in eval_sets(config) for f in s.files]
    files += supervised_raw_files()
    files += pwim_raw_files()
    return list(dict.fromkeys(files))


def run(config: dict, *, manifest, out, downloads) -> None:
    records = fetch_all(required_raw_files(config), load_manifest(manifest), out, mirror_dir(config),
                        downloads=downloads)
    print(f"fetched {len(records)} files into {out}")

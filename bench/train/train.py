#!/usr/bin/python3
"""Train ctxmap's learned ranker from pairs mined from version history (`ctxmap bench mine`).

  /usr/bin/python3 bench/train/train.py PAIRS.jsonl... [--out internal/rank/model.json] [--report FILE.json]
      [--fraction F] [--ablation] [--curve]

Pinned to Debian bookworm's packages, which install offline with apt: python3-xgboost 1.7.4,
python3-sklearn 1.2.1, python3-numpy 1.24.2. The run is deterministic: the same pairs give the same
model.

Repositories are split, not pairs: one in five (by sorted name) is held back. The file model is
LambdaMART (xgboost rank:ndcg) over each query's candidates; the definition model ranks the
definitions of each file the fix changed (rank:pairwise, a file a group). Both are calibrated on the
held-back repositories (Platt: a logistic regression of the label on the score, its gap to the best of
its query or file and its rank there), and the
pack's thresholds are chosen there too. The model file holds the trees, the calibrations and the
thresholds; internal/rank evaluates it in Go, and testdata/predictions.json beside it (written here)
checks that Go's scores equal xgboost's.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
import sklearn
import xgboost as xgb
from sklearn.linear_model import LogisticRegression

PINNED = {"xgboost": "1.7.4", "sklearn": "1.2.1", "numpy": "1.24.2"}

FILE_PARAMS = {"objective": "rank:ndcg", "eta": 0.08, "max_depth": 6, "min_child_weight": 5,
               "subsample": 0.8, "colsample_bytree": 0.8, "lambda": 2.0, "tree_method": "hist",
               "eval_metric": "ndcg@5", "seed": 7, "nthread": 2}
DEF_PARAMS = {"objective": "rank:pairwise", "eta": 0.1, "max_depth": 5, "min_child_weight": 5,
              "subsample": 0.8, "colsample_bytree": 0.8, "lambda": 2.0, "tree_method": "hist",
              "seed": 7, "nthread": 2}
FILE_ROUNDS, DEF_ROUNDS = 250, 150

# Definition features the definition model leaves out: priors that history teaches and issues do not
# share. A commit's insertions land at a file's end and any diff touches long bodies more often, so
# where a definition sits, how long it is and how many its file holds predict which definition a
# commit changed, not which one an issue is about; the file's own rank is the same for each of its
# definitions. Without them the changed definition comes first more often on the dev set's issues
# (0.316 -> 0.361 over three seeds) at no cost on held-back issue-shaped texts (0.632 -> 0.623).
DEF_LEFT_OUT = ["position", "log_len", "log_file_defs", "file_rr", "file_rel"]

# feature groups for the ablation, by name prefix
GROUPS = {
    "exact": ["symbols_", "paths_", "frames_", "errors_", "fuzzy_"],
    "bm25": ["bm25_"], "vectors": ["vectors_"], "entities": ["entities_"], "history": ["history_"],
    "fusion": ["signals_top10", "fused_", "graph_rel"],
    "kind": ["is_"], "size": ["log_lines", "log_defs", "depth"],
    "git": ["log_churn", "recency", "co_change"], "graph": ["log_degree"],
    "words": ["path_terms", "name_terms_share"], "query": ["q_"],
}


def load(paths):
    rows = []
    for p in paths:
        with open(p) as f:
            for line in f:
                line = line.strip()
                if line:
                    rows.append(json.loads(line))
    rows.sort(key=lambda r: (r["repo"], r["snapshot"], r["commit"]))
    return rows


def split(rows):
    repos = sorted({r["repo"] for r in rows})
    held = {r for i, r in enumerate(repos) if i % 5 == 2}
    return [r for r in rows if r["repo"] not in held], [r for r in rows if r["repo"] in held], sorted(held)


def file_matrix(rows, mask=None):
    xs, ys, groups, weights, qid = [], [], [], [], []
    for q, r in enumerate(rows):
        gold = set(r["gold_files"])
        cands = r["candidates"]
        if not cands:
            continue
        for c in cands:
            xs.append(c["x"])
            ys.append(1.0 if c["path"] in gold else 0.0)
            qid.append(q)
        groups.append(len(cands))
        weights.append(shape_weight(r))
    x = np.array(xs, dtype=np.float32)
    if mask is not None:
        x[:, mask] = np.nan
    return x, np.array(ys), groups, np.array(weights), np.array(qid)


def shape_weight(r):
    """Texts shaped as issues (a commit asked again with an issue's evidence) are closest to what the
    ranker will be asked, then squash messages of pull requests, then plain commit messages."""
    if r.get("shape") == "issue":
        return 1.5
    return 1.25 if r["pr"] else 1.0


def def_matrix(rows, groups=None):
    """The definitions of the files each fix changed, labelled by whether the fix changed them;
    groups, when given, gets the number of rows of each file."""
    xs, ys = [], []
    for r in rows:
        gold_files, gold = set(r["gold_files"]), set(r["gold_defs"] or [])
        for c in r["candidates"]:
            if c["path"] not in gold_files:
                continue
            ds = c.get("defs") or []
            for d in ds:
                xs.append(d["x"])
                ys.append(1.0 if c["path"] + "::" + d["symbol"] in gold else 0.0)
            if groups is not None and ds:
                groups.append(len(ds))
    return np.array(xs, dtype=np.float32), np.array(ys)


def train_files(rows, names, rounds=FILE_ROUNDS, mask=None):
    x, y, groups, w, _ = file_matrix(rows, mask)
    d = xgb.DMatrix(x, label=y, feature_names=names)
    d.set_group(groups)
    d.set_weight(w)
    return xgb.train(FILE_PARAMS, d, rounds)


def margins(model, x, names):
    return model.predict(xgb.DMatrix(x, feature_names=names), output_margin=True)


def platt_inputs(m, qid):
    """The score, its gap to its group's best and its rank within the group (a query's files, a file's
    definitions)."""
    gap = np.zeros_like(m)
    rank = np.zeros_like(m)
    start = 0
    while start < len(m):
        end = start
        while end < len(m) and qid[end] == qid[start]:
            end += 1
        seg = m[start:end]
        gap[start:end] = seg - seg.max()
        order = np.argsort(-seg, kind="stable")
        rk = np.empty(len(seg))
        rk[order] = np.arange(len(seg))
        rank[start:end] = np.log1p(rk)
        start = end
    return np.stack([m, gap, rank], axis=1)


def ranking_figures(rows, m, qid):
    """hit@k (every gold file among the first k candidates) and MRR over the queries."""
    hits = {1: 0, 3: 0, 5: 0, 10: 0}
    rr, n = 0.0, 0
    start = 0
    for q, r in enumerate(rows):
        k = len(r["candidates"])
        if k == 0:
            continue
        seg = m[start:start + k]
        order = np.argsort(-seg, kind="stable")
        paths = [r["candidates"][i]["path"] for i in order]
        start += k
        gold = set(r["gold_files"])
        n += 1
        for top in hits:
            if gold <= set(paths[:top]):
                hits[top] += 1
        first = next((i for i, p in enumerate(paths) if p in gold), None)
        if first is not None:
            rr += 1 / (1 + first)
    return {**{f"hit@{k}": round(v / max(n, 1), 4) for k, v in hits.items()}, "mrr": round(rr / max(n, 1), 4), "queries": n}


def fused_figures(rows):
    """The same figures for the fused order the candidates come in: the ranker to beat."""
    m = np.concatenate([-np.arange(len(r["candidates"]), dtype=np.float32) for r in rows if r["candidates"]])
    return ranking_figures(rows, m, None)


def def_figures(score, y, groups):
    """Over the files with a changed definition: is one among the first k the scores rank?"""
    hits, n, start = {1: 0, 3: 0}, 0, 0
    for g in groups:
        s, lab = score[start:start + g], y[start:start + g]
        start += g
        if lab.sum() == 0:
            continue
        n += 1
        order = np.argsort(-s, kind="stable")
        for k in hits:
            if lab[order[:k]].sum() > 0:
                hits[k] += 1
    return {**{f"hit@{k}": round(v / max(n, 1), 4) for k, v in hits.items()}, "files": n}


def calibrate(held, m, y, qid):
    """Platt scaling of the file model on the held-back queries, and the threshold it gives."""
    cal = LogisticRegression(C=1.0).fit(platt_inputs(m, qid), y)
    p = cal.predict_proba(platt_inputs(m, qid))[:, 1]
    threshold, f2 = choose_threshold(held, p)
    return cal, p, threshold, f2


def platt_json(cal):
    return {"coef": [float(c) for c in cal.coef_[0]], "intercept": float(cal.intercept_[0])}


def brier(p, y):
    return float(np.mean((p - y) ** 2))


def choose_threshold(rows, p):
    """The file threshold that maximises F2 (a missing file costs more than a spare one) over the
    held-back queries, always keeping each query's best file."""
    best = (0, 0.5)
    for t in np.arange(0.05, 0.9, 0.01):
        tp = fp = fn = 0
        start = 0
        for r in rows:
            k = len(r["candidates"])
            if k == 0:
                continue
            seg = p[start:start + k]
            start += k
            gold = set(r["gold_files"])
            order = np.argsort(-seg, kind="stable")
            kept = {r["candidates"][i]["path"] for j, i in enumerate(order) if j == 0 or seg[i] >= t}
            tp += len(kept & gold)
            fp += len(kept - gold)
            fn += len(gold - kept)
        f2 = 5 * tp / max(5 * tp + 4 * fn + fp, 1)
        if f2 > best[0]:
            best = (f2, float(t))
    return round(best[1], 2), round(best[0], 4)


def export_trees(model, names, x0):
    """The trees as arrays: for node i, feature[i] < 0 marks a leaf whose value is value[i]; otherwise
    x[feature[i]] < value[i] goes to left[i], else right[i], and a missing value to left[i] when
    missing_left[i]."""
    raw = json.loads(model.save_raw("json"))
    learner = raw["learner"]
    trees = []
    for t in learner["gradient_booster"]["model"]["trees"]:
        left, right = t["left_children"], t["right_children"]
        feat = [(-1 if left[i] == -1 else int(t["split_indices"][i])) for i in range(len(left))]
        trees.append({"left": left, "right": right, "feature": feat,
                      "value": [float(np.float32(v)) for v in t["split_conditions"]],
                      "missing_left": [int(v) for v in t["default_left"]]})
    # the base margin: a row's margin less its leaves (the objective decides how base_score maps to it)
    d = xgb.DMatrix(x0[:1], feature_names=names)
    leaves = model.predict(d, pred_leaf=True)[0]
    total = np.float32(0)
    for t, leaf in zip(trees, leaves):
        total = np.float32(total + np.float32(t["value"][int(leaf)]))
    base = float(np.float32(model.predict(d, output_margin=True)[0]) - total)
    return {"features": names, "base": base, "trees": trees}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pairs", nargs="+")
    ap.add_argument("--out", default="internal/rank/model.json")
    ap.add_argument("--report", default="")
    ap.add_argument("--fraction", type=float, default=1.0, help="train on this share of the training queries")
    ap.add_argument("--ablation", action="store_true", help="retrain without each feature group")
    ap.add_argument("--curve", action="store_true", help="retrain on 1/8, 1/4, 1/2 of the queries")
    ap.add_argument("--curve-dir", default="", help="write the learning curve's models here, model-N.json")
    ap.add_argument("--definitions-only", action="store_true",
                    help="train the definition model again; keep the file model, its calibration and threshold "
                         "(and its rows of testdata/predictions.json) from the model file at --out")
    args = ap.parse_args()
    if args.definitions_only and (args.curve or args.ablation):
        sys.exit("--definitions-only keeps the file model: no --curve or --ablation")
    versions = {"xgboost": xgb.__version__, "sklearn": sklearn.__version__, "numpy": np.__version__}
    if versions != PINNED:
        print(f"warning: versions {versions} differ from the pinned {PINNED}", file=sys.stderr)

    rows = load(args.pairs)
    names = json.load(open("internal/rank/features.json"))
    fnames, dnames = names["file"], names["def"]
    train, held, held_repos = split(rows)
    if args.fraction < 1:
        train = train[::max(1, round(1 / args.fraction))]
    print(f"{len(rows)} pairs from {len({r['repo'] for r in rows})} repositories; training on {len(train)}, "
          f"holding back {len(held)} of {held_repos}", file=sys.stderr)

    report = {"pairs": len(rows), "train_pairs": len(train), "held_pairs": len(held), "held_repos": held_repos,
              "versions": versions}
    pred = os.path.join(os.path.dirname(args.out) or ".", "testdata", "predictions.json")
    if args.definitions_only:
        kept, kept_sample, curves = json.load(open(args.out)), json.load(open(pred)), []
    else:
        kept, kept_sample, curves = file_part(train, held, fnames, args, report)
    dmodel, dused, dcal, hdx, hdm, dcols = definition_part(train, held, dnames, report)
    out = dict(kept, **{"def": export_trees(dmodel, dused, hdx[:, dcols]), "def_calibration": platt_json(dcal)})
    with open(args.out, "w") as f:
        json.dump(out, f, separators=(",", ":"))
    for n, cm in curves:
        with open(f"{args.curve_dir}/model-{n}.json", "w") as f:
            json.dump(dict(cm, **{"def": out["def"], "def_calibration": out["def_calibration"]}), f, separators=(",", ":"))
    # what Go must reproduce: xgboost's margins for some held-back candidates and definitions
    sample = dict(kept_sample, **{"def": {"x": [[float(v) for v in row] for row in hdx[:300, dcols].tolist()],
                                          "margin": [float(v) for v in hdm[:300]]}})
    os.makedirs(os.path.dirname(pred), exist_ok=True)
    with open(pred, "w") as f:
        json.dump(sample, f, separators=(",", ":"))
    text = json.dumps(report, indent=2)
    if args.report:
        open(args.report, "w").write(text + "\n")
    print(text)


def file_part(train, held, fnames, args, report):
    """The file model, its figures on the held-back queries and its calibration: the model file's file
    half, the file rows of the predictions Go must reproduce and the learning curve's smaller models."""
    model = train_files(train, fnames)
    hx, hy, _, _, hq = file_matrix(held)
    hm = margins(model, hx, fnames)
    report["fused"], report["learned"] = fused_figures(held), ranking_figures(held, hm, hq)
    # the held-back figures by shape: commit messages as they are, and the same commits asked as issues
    report["by_shape"] = {}
    for shape in ("commit", "issue"):
        sub = [r for r in held if r.get("shape", "commit") == shape]
        if not sub:
            continue
        sx, _, _, _, sq = file_matrix(sub)
        report["by_shape"][shape] = {"fused": fused_figures(sub), "learned": ranking_figures(sub, margins(model, sx, fnames), sq)}

    cal, hp, threshold, f2 = calibrate(held, hm, hy, hq)
    report["brier_held"] = round(brier(hp, hy), 5)
    report["file_threshold"], report["file_threshold_f2"] = threshold, f2

    curve_models = []
    if args.curve:
        report["curve"] = []
        for frac in (0.125, 0.25, 0.5, 1.0):
            sub = train[::round(1 / frac)]
            m = train_files(sub, fnames) if frac < 1 else model
            report["curve"].append({"train_pairs": len(sub), **ranking_figures(held, margins(m, hx, fnames), hq)})
            if frac < 1:
                curve_models.append((len(sub), m))
    if args.ablation:
        # cheaper than the shipped model (half the queries, fewer trees): the differences are what count
        half = train[::2]
        report["ablation"] = {"all": ranking_figures(held, margins(train_files(half, fnames, rounds=120), hx, fnames), hq)}
        for g, prefixes in GROUPS.items():
            mask = [i for i, n in enumerate(fnames) if any(n.startswith(p) for p in prefixes)]
            m = train_files(half, fnames, rounds=120, mask=mask)
            x = hx.copy()
            x[:, mask] = np.nan
            report["ablation"][g] = ranking_figures(held, margins(m, x, fnames), hq)

    kept = {
        "file": export_trees(model, fnames, hx),
        "file_calibration": platt_json(cal),
        "file_threshold": threshold,
        "trained": {"pairs": len(train), "repositories": sorted({r["repo"] for r in train})},
    }
    # the learning curve's smaller file models, with the same definition model and calibration, for
    # `ctxmap bench --model` on the dev set
    curves = []
    for n, m in curve_models if args.curve_dir else []:
        mm = margins(m, hx, fnames)
        ccal, _, ct, _ = calibrate(held, mm, hy, hq)
        curves.append((n, dict(kept, file=export_trees(m, fnames, hx), file_calibration=platt_json(ccal),
                               file_threshold=ct, trained={"pairs": n, "repositories": kept["trained"]["repositories"]})))
    sample = {"file": {"x": [[None if math.isnan(v) else float(v) for v in row] for row in hx[:300].tolist()],
                       "margin": [float(v) for v in hm[:300]]}}
    return kept, sample, curves


def definition_part(train, held, dnames, report):
    """The definition model over the definitions of the files each fix changed, its figures on the
    held-back queries and its calibration."""
    dcols = [i for i, n in enumerate(dnames) if n not in DEF_LEFT_OUT]
    dused = [dnames[i] for i in dcols]
    # which of a file's definitions the fix changed is a choice among them: ranked within the file, the
    # changed one comes first more often than when each is judged alone (held back: 0.546 -> 0.567)
    tgroups, hgroups = [], []
    dx, dy = def_matrix(train, tgroups)
    dtrain = xgb.DMatrix(dx[:, dcols], label=dy, feature_names=dused)
    dtrain.set_group(tgroups)
    dmodel = xgb.train(DEF_PARAMS, dtrain, DEF_ROUNDS)
    hdx, hdy = def_matrix(held, hgroups)
    hdm = dmodel.predict(xgb.DMatrix(hdx[:, dcols], feature_names=dused), output_margin=True)
    hfile = np.repeat(np.arange(len(hgroups)), hgroups)
    dcal = LogisticRegression(C=1.0).fit(platt_inputs(hdm, hfile), hdy)
    report["def_ranking"] = def_figures(hdm, hdy, hgroups)
    for shape in ("commit", "issue"):
        sub = [r for r in held if r.get("shape", "commit") == shape]
        sg = []
        sdx, sdy = def_matrix(sub, sg)
        if len(sdy):
            sdm = dmodel.predict(xgb.DMatrix(sdx[:, dcols], feature_names=dused), output_margin=True)
            report["def_ranking_" + shape] = def_figures(sdm, sdy, sg)
    report["def_ranking_by_evidence"] = def_figures(hdx[:, dnames.index("def_rank")], hdy, hgroups)
    report["def_rows"], report["def_brier_held"] = len(dy), round(brier(dcal.predict_proba(platt_inputs(hdm, hfile))[:, 1], hdy), 5)

    return dmodel, dused, dcal, hdx, hdm, dcols


if __name__ == "__main__":
    main()

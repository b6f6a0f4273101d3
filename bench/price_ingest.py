"""Price-ingest benchmark: synthetic price rows through parse -> validate -> cache, beside the floor.

The floor is `sqlite-utils insert --csv` of the same file into a fresh database, in the same run.
Each measurement runs in its own process, so peak memory (max RSS) is its own. Run at two feed
sizes to see that memory does not grow with the feed:

    python bench/price_ingest.py            # 200,000 rows (and 50,000 for the memory comparison)
    python bench/price_ingest.py --rows 20000 --small 5000
    python bench/price_ingest.py --source gpuhunt   # a gpuhunt catalog of 50,000 offers (and 12,500), goal <= 1.0x
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

GPUS = [("A100-80GB", 1.2), ("H100-80GB", 2.2), ("H800-80GB", 2.0), ("L40S-48GB", 0.9), ("RTX4090-24GB", 0.4)]
HEADER = [
    "provider",
    "region",
    "region_class",
    "instance_type",
    "gpu",
    "gpu_count",
    "sharing",
    "pricing_model",
    "amount",
    "currency",
    "unit",
    "effective_date",
    "basis",
]

CHILD = r"""
import json, resource, sys, time
from datetime import datetime, UTC
from pathlib import Path
mode, csv_path, db_path = sys.argv[1:4]
start = time.perf_counter()
if mode == "gpuhunt":
    from pricing import cache
    from pricing.gpuhunt_source import Catalog
    db = cache.open_db(db_path)
    catalog = Catalog(Path(csv_path).stem, Path(csv_path).parent)
    rows = cache.replace_source(db, catalog.source, catalog.records(datetime.now(UTC)))
elif mode == "ours":
    from pricing import cache
    from pricing.sources import read_price_file
    db = cache.open_db(db_path)
    rows = cache.replace_source(db, "feed", read_price_file(Path(csv_path), csv_path, "feed", datetime.now(UTC)))
else:
    from sqlite_utils.cli import cli
    cli.main(["insert", db_path, "prices", csv_path, "--csv"], standalone_mode=False)
    import sqlite3
    rows = sqlite3.connect(db_path).execute("select count(*) from prices").fetchone()[0]
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"rows": rows, "seconds": elapsed, "max_rss_mb": peak}))
"""


def write_feed(path: Path, rows: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        for i in range(rows):
            gpu, usd = rng.choice(GPUS)
            count = rng.choice([1, 2, 4, 8])
            model = rng.choice(["on-demand", "spot"])
            price = round(usd * count * rng.uniform(0.8, 1.6) * (0.4 if model == "spot" else 1.0), 4)
            writer.writerow(
                [
                    "bench-cloud",
                    f"region-{i % 40}",
                    "cloud",
                    f"vm-{i}",
                    gpu,
                    count,
                    "dedicated",
                    model,
                    price,
                    "USD",
                    "hour",
                    "2026-11-01",
                    "synthetic",
                ]
            )


GPUHUNT_GPUS = [
    ("A100", 40, 1.3),
    ("A100", 80, 1.8),
    ("H100", 80, 2.5),
    ("L4", 24, 0.5),
    ("A10G", 24, 1.0),
    ("L40S", 48, 1.0),
    ("T4", 16, 0.4),
    ("H200", 141, 3.5),
    ("B200", 180, 5.0),
    (None, None, 0.2),
]


def write_catalog(path: Path, rows: int, seed: int = 7) -> None:
    """A gpuhunt catalog (its v2 columns) of `rows` offers, one in ten without a GPU or with one we skip."""
    from gpuhunt import AcceleratorVendor, CatalogItem
    from gpuhunt._internal import storage

    rng = random.Random(seed)

    def items():  # type: ignore[no-untyped-def]
        for i in range(rows):
            gpu, memory, usd = rng.choice(GPUHUNT_GPUS)
            count = rng.choice([1, 2, 4, 8]) if gpu else 0
            spot = rng.random() < 0.4
            price = round(usd * max(count, 1) * rng.uniform(0.8, 1.6) * (0.4 if spot else 1.0), 4)
            yield CatalogItem(
                provider=path.stem,
                instance_name=f"vm-{i}",
                location=f"region-{i % 40}",
                price=price,
                cpu=8 * max(count, 1),
                memory=64.0 * max(count, 1),
                gpu_count=count,
                gpu_name=gpu,
                gpu_memory=float(memory) if memory else None,
                spot=spot,
                disk_size=None,
                gpu_vendor=AcceleratorVendor.NVIDIA if gpu else None,
            )

    storage.dump(items(), str(path))


def measure(mode: str, csv_path: Path, workdir: Path) -> dict[str, float]:
    db_path = workdir / f"{mode}-{csv_path.parent.name}.db"
    db_path.unlink(missing_ok=True)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(csv_path), str(db_path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[1],
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--small", type=int, default=None, help="smaller feed, for the memory comparison")
    parser.add_argument(
        "--source",
        choices=("feed", "gpuhunt"),
        default="feed",
        help="feed: the generic price feed; gpuhunt: a gpuhunt catalog (default 50,000 offers)",
    )
    args = parser.parse_args()
    gpuhunt = args.source == "gpuhunt"
    if gpuhunt and args.rows == 200_000:
        args.rows = 50_000
    args.small = args.small or args.rows // 4
    target = 1.0 if gpuhunt else 1.5
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "big").mkdir()
        (work / "small").mkdir()
        big, small = work / "big" / "aws.csv", work / "small" / "aws.csv"  # a provider gpuhunt publishes
        write = write_catalog if gpuhunt else write_feed
        write(big, args.rows)
        write(small, args.small)
        results = {}
        for label, path in (("small", small), ("big", big)):
            for mode in ("floor", "gpuhunt" if gpuhunt else "ours"):
                results[(label, "floor" if mode == "floor" else "ours")] = measure(mode, path, work)
        print(f"{'run':<28}{'rows':>10}{'seconds':>10}{'rows/s':>12}{'peak MB':>10}")
        for (label, mode), r in results.items():
            name = f"{'sqlite-utils insert' if mode == 'floor' else 'read+map+validate+cache'} ({label})"
            print(
                f"{name:<28}{int(r['rows']):>10,}{r['seconds']:>10.2f}{r['rows'] / r['seconds']:>12,.0f}"
                f"{r['max_rss_mb']:>10.1f}"
            )
        ratio = results[("big", "ours")]["seconds"] / results[("big", "floor")]["seconds"]
        growth = results[("big", "ours")]["max_rss_mb"] - results[("small", "ours")]["max_rss_mb"]
        floor_growth = results[("big", "floor")]["max_rss_mb"] - results[("small", "floor")]["max_rss_mb"]
        print(f"\ntime vs floor: {ratio:.2f}x (target <= {target}x)")
        print(
            f"peak memory growth {args.small:,} -> {args.rows:,} rows: ours {growth:+.1f} MB, "
            f"floor {floor_growth:+.1f} MB"
        )


if __name__ == "__main__":
    main()

"""Writes the gpuhunt catalogs the tests read (aws, azure, gcp, lambdalabs, runpod .csv), with gpuhunt's own
writer, so the files are in its catalog format (v2 columns).

Instance types, GPUs and on-demand list prices per hour in USD are the providers' published ones for their
first region (AWS EC2 On-Demand pricing, Google Cloud GPU pricing, Azure Linux VM pricing, Lambda's and
RunPod's pricing pages, as listed in gpuhunt's catalogs of late 2025); the other regions are the same
offers at +0-15%, and spot rows at 35% of on-demand, so that regions and spot differ. Rows without a GPU
and GPUs the advisor does not know (B200, RTX A6000, GH200, a 16 GB V100) are kept on purpose: they are
the rows a refresh must skip and count.

    python tests/data/gpuhunt/make_catalogs.py
"""

from __future__ import annotations

from pathlib import Path

from gpuhunt import AcceleratorVendor, CatalogItem
from gpuhunt._internal import storage

HERE = Path(__file__).parent
# provider: (regions, spot sold, [(instance, gpu name, GPU GB per card, cards, vCPUs, RAM GB, USD an hour)])
OFFERS = {
    "aws": (
        ["us-east-1", "us-west-2", "eu-west-1", "ap-northeast-1", "eu-central-1", "ap-southeast-1"],
        True,
        [
            ("p4d.24xlarge", "A100", 40, 8, 96, 1152, 32.7726),
            ("p4de.24xlarge", "A100", 80, 8, 96, 1152, 40.9657),
            ("p5.48xlarge", "H100", 80, 8, 192, 2048, 55.04),
            ("p5e.48xlarge", "H200", 141, 8, 192, 2048, 80.0),
            ("g5.xlarge", "A10G", 24, 1, 4, 16, 1.006),
            ("g5.12xlarge", "A10G", 24, 4, 48, 192, 5.672),
            ("g5.48xlarge", "A10G", 24, 8, 192, 768, 16.288),
            ("g6.xlarge", "L4", 24, 1, 4, 16, 0.8048),
            ("g6.12xlarge", "L4", 24, 4, 48, 192, 4.6016),
            ("g6e.xlarge", "L40S", 48, 1, 4, 32, 1.861),
            ("g6e.12xlarge", "L40S", 48, 4, 48, 384, 10.493),
            ("g4dn.xlarge", "T4", 16, 1, 4, 16, 0.526),
            ("g4dn.12xlarge", "T4", 16, 4, 48, 192, 3.912),
            ("p3.2xlarge", "V100", 16, 1, 8, 61, 3.06),
            ("p3dn.24xlarge", "V100", 32, 8, 96, 768, 31.212),
            ("p6-b200.48xlarge", "B200", 180, 8, 192, 2048, 113.93),
            ("c5.xlarge", None, None, 0, 4, 8, 0.17),
            ("m5.2xlarge", None, None, 0, 8, 32, 0.384),
        ],
    ),
    "gcp": (
        ["us-central1", "us-east4", "europe-west4", "asia-southeast1", "us-west1"],
        True,
        [
            ("a2-highgpu-1g", "A100", 40, 1, 12, 85, 3.6733),
            ("a2-highgpu-8g", "A100", 40, 8, 96, 680, 29.3867),
            ("a2-ultragpu-1g", "A100", 80, 1, 12, 170, 5.0688),
            ("a2-ultragpu-8g", "A100", 80, 8, 96, 1360, 40.5504),
            ("a3-highgpu-8g", "H100", 80, 8, 208, 1872, 88.2493),
            ("a3-ultragpu-8g", "H200", 141, 8, 224, 2952, 84.8),
            ("g2-standard-4", "L4", 24, 1, 4, 16, 0.7068),
            ("g2-standard-48", "L4", 24, 4, 48, 192, 4.0),
            ("n1-standard-4", "T4", 16, 1, 4, 15, 0.54),
            ("n1-standard-8", "V100", 16, 1, 8, 30, 2.86),
            ("e2-standard-4", None, None, 0, 4, 16, 0.134),
        ],
    ),
    "azure": (
        ["eastus", "westeurope", "southcentralus", "japaneast"],
        True,
        [
            ("Standard_NC24ads_A100_v4", "A100", 80, 1, 24, 220, 3.673),
            ("Standard_ND96amsr_A100_v4", "A100", 80, 8, 96, 1900, 32.77),
            ("Standard_ND96isr_H100_v5", "H100", 80, 8, 96, 1900, 98.32),
            ("Standard_NC40ads_H100_v5", "H100NVL", 94, 1, 40, 320, 6.98),
            ("Standard_NC4as_T4_v3", "T4", 16, 1, 4, 28, 0.526),
            ("Standard_NV36ads_A10_v5", "A10", 24, 1, 36, 440, 3.2),
            ("Standard_D4s_v5", None, None, 0, 4, 16, 0.192),
        ],
    ),
    "lambdalabs": (
        ["us-east-1", "us-west-1", "us-south-1", "europe-central-1"],
        False,
        [
            ("gpu_1x_h100_sxm5", "H100", 80, 1, 26, 225, 2.99),
            ("gpu_8x_h100_sxm5", "H100", 80, 8, 208, 1800, 23.92),
            ("gpu_1x_a100_sxm4", "A100", 40, 1, 30, 200, 1.29),
            ("gpu_8x_a100_80gb_sxm4", "A100", 80, 8, 240, 1800, 14.32),
            ("gpu_1x_a10", "A10", 24, 1, 30, 200, 0.75),
            ("gpu_1x_a6000", "A6000", 48, 1, 14, 100, 0.80),
            ("gpu_1x_gh200", "GH200", 96, 1, 64, 432, 1.49),
            ("gpu_8x_b200_sxm6", "B200", 180, 8, 208, 2900, 39.92),
        ],
    ),
    "runpod": (
        ["CA-MTL-1", "EU-RO-1", "US-TX-3", "EU-SE-1", "US-GA-1"],
        True,
        [
            ("NVIDIA H100 80GB HBM3", "H100", 80, 1, 16, 125, 2.69),
            ("NVIDIA H100 PCIe", "H100", 80, 1, 16, 188, 2.39),
            ("NVIDIA H100 NVL", "H100NVL", 94, 1, 16, 94, 2.59),
            ("NVIDIA H200", "H200", 141, 1, 24, 276, 3.99),
            ("NVIDIA A100 80GB PCIe", "A100", 80, 1, 8, 117, 1.64),
            ("NVIDIA A100-SXM4-80GB", "A100", 80, 1, 16, 125, 1.74),
            ("NVIDIA L40S", "L40S", 48, 1, 12, 62, 0.86),
            ("NVIDIA GeForce RTX 4090", "RTX4090", 24, 1, 6, 41, 0.69),
            ("NVIDIA L4", "L4", 24, 1, 12, 50, 0.43),
            ("NVIDIA RTX A6000", "A6000", 48, 1, 8, 50, 0.49),
        ],
    ),
}
REGION_UPLIFT = [1.0, 1.05, 1.1, 1.12, 1.15, 1.08]


def items(provider: str) -> list[CatalogItem]:
    regions, spot_sold, offers = OFFERS[provider]
    out = []
    for n, region in enumerate(regions):
        for instance, gpu, memory, cards, cpu, ram, price in offers:
            counts = [1, 2, 4, 8] if provider == "runpod" else [cards]
            for count in counts:
                name = f"{count}x {instance}" if provider == "runpod" and count > 1 else instance
                times = count // max(counts[0], 1) if count else 1  # how many of the listed offer
                on_demand = round(price * times * REGION_UPLIFT[n], 4)
                for spot in (False, True) if spot_sold else (False,):
                    out.append(
                        CatalogItem(
                            provider=provider,
                            instance_name=name,
                            location=region,
                            price=round(on_demand * 0.35, 4) if spot else on_demand,
                            cpu=cpu * times,
                            memory=float(ram * times),
                            gpu_count=count if gpu else 0,
                            gpu_name=gpu,
                            gpu_memory=float(memory) if memory else None,
                            spot=spot,
                            disk_size=None,
                            gpu_vendor=AcceleratorVendor.NVIDIA if gpu else None,
                        )
                    )
    return out


if __name__ == "__main__":
    for provider in OFFERS:
        storage.dump(items(provider), str(HERE / f"{provider}.csv"))
        print(provider, len(items(provider)))

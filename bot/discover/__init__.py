"""Finding what a team rents without anyone typing it: AWS (EC2 instances with GPUs, unattached EBS volumes,
CloudWatch's NVIDIA metrics). Reading the cloud is here; keeping what was found is bot/state/discovered.py."""

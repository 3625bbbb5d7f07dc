"""losslessd: keep RDMA fabrics lossless (RoCEv2 PFC/ECN/buffer lint, monitoring, rendering)."""

__version__ = "0.1.0"

"""Normalization layers' fused ops: layer_norm, batch_norm."""

"""torch.nn.attention.experimental: attention features PyTorch marks as not mature (no
compatibility promises), all in private modules: paged attention on flex_attention
(`_paged_attention`). PyTorch's `_scaled_dot_product_attention_quantized` (float8 attention
through the Flash Attention 3 CUDA kernel) has no CPU kernel and is absent."""

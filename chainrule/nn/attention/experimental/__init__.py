"""torch.nn.attention.experimental: attention features PyTorch marks as not mature (no
compatibility promises). Its only public content is private modules: paged attention on
flex_attention (`_paged_attention`)."""

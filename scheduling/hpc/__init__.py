"""What several HPC kinds share, beside the kinds and below them."""

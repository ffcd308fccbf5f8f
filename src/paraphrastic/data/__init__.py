"""Data: upstream files fetched and verified, read, tokenised and written as tables; vocabularies and batches."""

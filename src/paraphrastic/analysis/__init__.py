"""Analysis: the GRAN gate analysis (with its Stanza models) and the error analysis of Sec. 5."""

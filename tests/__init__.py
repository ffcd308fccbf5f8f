"""The test suite; its folders mirror the package (integration/ runs the real pipeline)."""
